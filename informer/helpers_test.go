package informer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// testTimeout bounds every wait of a test; reaching it fails the test.
const testTimeout = 20 * time.Second

// fastBackoff retries at once, so a fault test does not wait on backoff.
var fastBackoff = reflector.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond, Jitter: reflector.NoJitter}

// env is a fake API server and a client for it.
type env struct {
	t   *testing.T
	srv *fakeapiserver.Server
	c   *rest.Client
	ctx context.Context
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, fakeapiserver.Options{})
}

// newEnvWith is newEnv with a server started with opts.
func newEnvWith(t *testing.T, opts fakeapiserver.Options) *env {
	t.Helper()
	srv := fakeapiserver.NewForTest(t, opts)
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return &env{t: t, srv: srv, c: c, ctx: ctx}
}

func (e *env) create(ns, name string, data map[string]string) *ConfigMap {
	e.t.Helper()
	var out ConfigMap
	err := e.c.Post().Namespace(ns).Resource("configmaps").
		Body(&ConfigMap{TypeMeta: meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: meta.ObjectMeta{Name: name}, Data: data}).
		Do(e.ctx).Into(&out)
	require.NoError(e.t, err, "create %s/%s", ns, name)
	return &out
}

func (e *env) createLabelled(ns, name string, labels map[string]string) *ConfigMap {
	e.t.Helper()
	var out ConfigMap
	err := e.c.Post().Namespace(ns).Resource("configmaps").
		Body(&ConfigMap{TypeMeta: meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: meta.ObjectMeta{Name: name, Labels: labels}}).
		Do(e.ctx).Into(&out)
	require.NoError(e.t, err, "create %s/%s", ns, name)
	return &out
}

func (e *env) update(cm *ConfigMap, data map[string]string) *ConfigMap {
	e.t.Helper()
	in := *cm
	in.Data = data
	var out ConfigMap
	err := e.c.Put().Namespace(cm.Namespace).Resource("configmaps").Name(cm.Name).Body(&in).Do(e.ctx).Into(&out)
	require.NoError(e.t, err, "update %s/%s", cm.Namespace, cm.Name)
	return &out
}

func (e *env) remove(ns, name string) {
	e.t.Helper()
	err := e.c.Delete().Namespace(ns).Resource("configmaps").Name(name).Do(e.ctx).Error()
	require.NoError(e.t, err, "delete %s/%s", ns, name)
}

// startRecorded adds a recorder to inf, runs inf until the test ends and
// waits until it has synced and its watch is open on the server.
func (e *env) startRecorded(inf *informer.Informer[*ConfigMap]) *recorder {
	e.t.Helper()
	rec := newRecorder()
	_, err := inf.AddEventHandler(rec, informer.HandlerOptions{})
	require.NoError(e.t, err)
	run(e.t, inf)
	waitSynced(e.t, inf)
	require.NoError(e.t, e.srv.WaitForWatchers(e.ctx, "configmaps", 1))
	return rec
}

// informerFor builds an informer for configmaps in ns over the env's
// server, with fast retries.
func (e *env) informerFor(ns string, opts informer.Options[*ConfigMap]) *informer.Informer[*ConfigMap] {
	e.t.Helper()
	lw, err := reflector.NewListWatch[*ConfigMap](e.c, reflector.Source{Resource: "configmaps", Namespace: ns})
	require.NoError(e.t, err)
	if opts.Reflector.Backoff == (reflector.Backoff{}) {
		opts.Reflector.Backoff = fastBackoff
	}
	if opts.Reflector.Clock == nil {
		opts.Reflector.Clock = clock.Real{}
	}
	if opts.Name == "" {
		opts.Name = "configmaps"
	}
	inf, err := informer.New(lw, opts)
	require.NoError(e.t, err)
	return inf
}

// run runs inf until the test ends, and checks that Run returned.
func run[T interface{ Run(context.Context) error }](t *testing.T, inf T) context.CancelFunc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	stop := func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
			done <- nil
		case <-time.After(testTimeout):
			t.Errorf("Run did not return within %v of cancel", testTimeout)
		}
	}
	var once sync.Once
	t.Cleanup(func() { once.Do(stop) })
	return func() { once.Do(stop) }
}

// waitSynced waits for each syncer, failing the test with the reason.
func waitSynced(t *testing.T, syncers ...informer.Syncer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(t, informer.WaitForCacheSync(ctx, syncers...))
}

// recorder is a Handler that records what it receives as text lines:
// "add ns/name rv initial", "update ns/name rv->rv", "delete ns/name rv
// [unknown]". Tests wait on it without sleeping.
type recorder struct {
	// mu guards events and changed.
	mu     sync.Mutex
	events []string
	// changed is closed and replaced on every event.
	changed chan struct{}
	// before, if set, runs at the start of every call (to block or panic).
	before func(event string)
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) record(ev string) {
	if r.before != nil {
		r.before(ev)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *recorder) OnAdd(obj *ConfigMap, initial bool)    { r.added(obj, initial) }
func (r *recorder) OnUpdate(oldObj, newObj *ConfigMap)    { r.updated(oldObj, newObj) }
func (r *recorder) OnDelete(obj *ConfigMap, unknown bool) { r.deleted(obj, unknown) }

// added, updated and deleted record a notification about any type.
func (r *recorder) added(obj meta.Object, initial bool) {
	ev := fmt.Sprintf("add %s %s", meta.Key(obj), obj.GetObjectMeta().ResourceVersion)
	if initial {
		ev += " initial"
	}
	r.record(ev)
}

func (r *recorder) updated(oldObj, newObj meta.Object) {
	r.record(fmt.Sprintf("update %s %s->%s", meta.Key(newObj), oldObj.GetObjectMeta().ResourceVersion, newObj.GetObjectMeta().ResourceVersion))
}

func (r *recorder) deleted(obj meta.Object, unknown bool) {
	ev := fmt.Sprintf("delete %s %s", meta.Key(obj), obj.GetObjectMeta().ResourceVersion)
	if unknown {
		ev += " unknown"
	}
	r.record(ev)
}

// snapshot returns the events so far.
func (r *recorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// waitFor waits until cond holds for the events, failing the test after
// testTimeout with what was received.
func (r *recorder) waitFor(t *testing.T, what string, cond func(events []string) bool) []string {
	t.Helper()
	deadline := time.NewTimer(testTimeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		events := append([]string(nil), r.events...)
		changed := r.changed
		r.mu.Unlock()
		if cond(events) {
			return events
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waiting for %s; events so far:\n%s", what, strings.Join(events, "\n"))
		}
	}
}

// waitLen waits for at least n events.
func (r *recorder) waitLen(t *testing.T, n int) []string {
	t.Helper()
	return r.waitFor(t, fmt.Sprintf("%d events", n), func(ev []string) bool { return len(ev) >= n })
}

// errorLog collects OnError reports and lets a test wait for one.
type errorLog struct {
	mu      sync.Mutex
	errs    []error
	changed chan struct{}
}

func newErrorLog() *errorLog { return &errorLog{changed: make(chan struct{})} }

func (l *errorLog) add(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
	close(l.changed)
	l.changed = make(chan struct{})
}

// waitFor waits for an error matching cond and returns it.
func (l *errorLog) waitFor(t *testing.T, what string, cond func(error) bool) error {
	t.Helper()
	deadline := time.NewTimer(testTimeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		errs := append([]error(nil), l.errs...)
		changed := l.changed
		l.mu.Unlock()
		for _, err := range errs {
			if cond(err) {
				return err
			}
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waiting for error %s; got %v", what, errors.Join(errs...))
		}
	}
}

// fmtSscan is fmt.Sscan, named so tests read as prose.
var fmtSscan = fmt.Sscan

func reflectorOptionsWithResync() reflector.Options {
	return reflector.Options{ResyncPeriod: time.Minute}
}
