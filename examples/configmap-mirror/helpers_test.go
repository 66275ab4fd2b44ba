package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

const testTimeout = 30 * time.Second

// cluster is a fake API server, a client, and a watcher of its ConfigMaps
// that tests wait on.
type cluster struct {
	t     *testing.T
	srv   *fakeapiserver.Server
	c     *rest.Client
	ctx   context.Context
	path  string
	watch *informer.Informer[*ConfigMap]
	// mu guards changed, closed and replaced on every ConfigMap event.
	mu      sync.Mutex
	changed chan struct{}
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(path))
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	cl := &cluster{t: t, srv: srv, c: c, ctx: ctx, path: path, changed: make(chan struct{})}

	// The test's own view of the cluster, fed by an informer.
	lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps"})
	require.NoError(t, err)
	cl.watch, err = informer.New(lw, informer.Options[*ConfigMap]{})
	require.NoError(t, err)
	poke := func() {
		cl.mu.Lock()
		close(cl.changed)
		cl.changed = make(chan struct{})
		cl.mu.Unlock()
	}
	_, err = cl.watch.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc:    func(*ConfigMap, bool) { poke() },
		UpdateFunc: func(_, _ *ConfigMap) { poke() },
		DeleteFunc: func(*ConfigMap, bool) { poke() },
	}, informer.HandlerOptions{})
	require.NoError(t, err)
	wctx, wcancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = cl.watch.Run(wctx); close(done) }()
	t.Cleanup(func() { wcancel(); <-done })
	require.NoError(t, informer.WaitForCacheSync(ctx, cl.watch))
	return cl
}

// start runs the controller's program with args until the test ends; it
// returns the program's output buffer.
func (cl *cluster) start(args ...string) *syncBuffer {
	cl.t.Helper()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"--kubeconfig", cl.path, "-v"}, args...), out, out) }()
	cl.t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				cl.t.Errorf("run: %v\n%s", err, out.String())
			}
		case <-time.After(testTimeout):
			cl.t.Errorf("run did not return after cancel")
		}
	})
	return out
}

func (cl *cluster) createNamespace(name string) {
	cl.t.Helper()
	body := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}
	require.NoError(cl.t, cl.c.Post().Resource("namespaces").Body(body).Do(cl.ctx).Error())
}

func (cl *cluster) namespaces() []string {
	cl.t.Helper()
	var names []string
	_, _, err := cl.c.Get().Resource("namespaces").List(cl.ctx, func(item []byte) error {
		p, err := meta.PeekMeta(item)
		names = append(names, p.Name)
		return err
	})
	require.NoError(cl.t, err)
	return names
}

func (cl *cluster) put(cm *ConfigMap) *ConfigMap {
	cl.t.Helper()
	cm.TypeMeta = meta.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	var out ConfigMap
	req := cl.c.Post().Namespace(cm.Namespace).Resource("configmaps")
	if cm.ResourceVersion != "" {
		req = cl.c.Put().Namespace(cm.Namespace).Resource("configmaps").Name(cm.Name)
	}
	require.NoError(cl.t, req.Body(cm).Do(cl.ctx).Into(&out), "write %s", meta.Key(cm))
	return &out
}

func (cl *cluster) remove(ns, name string) {
	cl.t.Helper()
	require.NoError(cl.t, cl.c.Delete().Namespace(ns).Resource("configmaps").Name(name).Do(cl.ctx).Error())
}

func source(ns, name string, data map[string]string) *ConfigMap {
	return &ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{SourceLabel: "true"}}, Data: data}
}

// copies returns namespace → data of every copy of key in the test's view.
func (cl *cluster) copies(key string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, cm := range cl.watch.Indexer().List() {
		if of, ok := copyOf(cm); ok && of == key {
			out[cm.Namespace] = cm.Data
		}
	}
	return out
}

// waitFor waits, on the test informer's events, until cond holds.
func (cl *cluster) waitFor(what string, cond func() bool) {
	cl.t.Helper()
	deadline := time.NewTimer(testTimeout)
	defer deadline.Stop()
	for {
		cl.mu.Lock()
		changed := cl.changed
		cl.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			cl.t.Fatalf("timed out waiting for %s; configmaps: %v", what, cl.describe())
		}
	}
}

// waitCopies waits until key has exactly one copy with data in each of
// the namespaces in want.
func (cl *cluster) waitCopies(key string, want []string, data map[string]string) {
	cl.t.Helper()
	cl.waitFor(fmt.Sprintf("copies of %s in %v with %v", key, want, data), func() bool {
		got := cl.copies(key)
		if len(got) != len(want) {
			return false
		}
		for _, ns := range want {
			if d, ok := got[ns]; !ok || !maps.Equal(d, data) {
				return false
			}
		}
		return true
	})
}

func (cl *cluster) describe() string {
	var out []string
	for _, cm := range cl.watch.Indexer().List() {
		out = append(out, fmt.Sprintf("%s%v", meta.Key(cm), cm.Data))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// others returns every namespace but ns.
func (cl *cluster) others(ns string) []string {
	return slices.DeleteFunc(cl.namespaces(), func(s string) bool { return s == ns })
}

// syncBuffer is a bytes.Buffer safe for concurrent writes, that a test
// can wait on.
type syncBuffer struct {
	// mu guards b and changed, closed and replaced on every write.
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
	}
	s.changed = make(chan struct{})
	return s.b.Write(p)
}

// waitFor waits until the output contains substr.
func (s *syncBuffer) waitFor(t *testing.T, substr string) {
	t.Helper()
	deadline := time.NewTimer(testTimeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		found := strings.Contains(s.b.String(), substr)
		changed := s.changed
		s.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %q in the output:\n%s", substr, s.String())
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
