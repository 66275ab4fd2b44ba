package cluster

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
)

// AwaitTimeout bounds every Await on a Cluster whose own AwaitTimeout
// is zero.
const AwaitTimeout = 60 * time.Second

// awaitTimeout returns the bound of c's Awaits.
func (c *Cluster) awaitTimeout() time.Duration {
	if c.AwaitTimeout > 0 {
		return c.AwaitTimeout
	}
	return AwaitTimeout
}

// Await waits until cond holds for the objects of resource (all
// namespaces) as an informer of the test sees them, checking again on
// every change, and returns them. It fails the test, naming what, if
// cond does not hold within the Cluster's AwaitTimeout.
func Await[T meta.Object](t testing.TB, c *Cluster, resource, what string, cond func([]T) bool) []T {
	t.Helper()
	var objs []T
	ok := Watch(t, c, resource, func(ctx context.Context, inf *informer.Informer[T], changed func() <-chan struct{}) bool {
		for {
			ch := changed()
			objs = inf.Indexer().List()
			if cond(objs) {
				return true
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return false
			}
		}
	})
	if !ok {
		seen, _ := json.Marshal(objs)
		if len(seen) > 8192 {
			seen = append(seen[:8192], "…"...)
		}
		t.Fatalf("timed out after %s waiting for %s; last seen: %s", c.awaitTimeout(), what, seen)
	}
	return objs
}

// Watch runs an informer of resource for the test while fn runs; changed
// returns a channel closed at the next change. fn's context ends after
// the Cluster's AwaitTimeout.
func Watch[T meta.Object](t testing.TB, c *Cluster, resource string, fn func(ctx context.Context, inf *informer.Informer[T], changed func() <-chan struct{}) bool) bool {
	t.Helper()
	lw, err := reflector.NewListWatch[T](c.Client, reflector.Source{Resource: resource})
	if err != nil {
		t.Fatalf("watch %s: %v", resource, err)
	}
	inf, err := informer.New(lw, informer.Options[T]{})
	if err != nil {
		t.Fatalf("watch %s: %v", resource, err)
	}
	var mu sync.Mutex
	ch := make(chan struct{})
	poke := func() {
		mu.Lock()
		close(ch)
		ch = make(chan struct{})
		mu.Unlock()
	}
	changed := func() <-chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		return ch
	}
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[T]{
		AddFunc:    func(T, bool) { poke() },
		UpdateFunc: func(T, T) { poke() },
		DeleteFunc: func(T, bool) { poke() },
	}, informer.HandlerOptions{Name: "test"}); err != nil {
		t.Fatalf("watch %s: %v", resource, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.awaitTimeout())
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = inf.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		return false
	}
	return fn(ctx, inf, changed)
}

// AwaitNamed waits until the object of resource named namespace/name
// exists and cond holds for it, and returns it.
func AwaitNamed[T meta.Object](t testing.TB, c *Cluster, resource, namespace, name, what string, cond func(T) bool) T {
	t.Helper()
	var found T
	Await(t, c, resource, what, func(objs []T) bool {
		for _, o := range objs {
			if m := o.GetObjectMeta(); m.Name == name && m.Namespace == namespace {
				found = o
				return cond(o)
			}
		}
		return false
	})
	return found
}
