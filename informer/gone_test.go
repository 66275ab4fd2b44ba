package informer_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// Widget is the custom resource of the tests of a resource that goes away.
type Widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            map[string]string `json:"spec,omitempty"`
}

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
  "versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// widgetSource is where the widgets are listed and watched.
var widgetSource = reflector.Source{Resource: "example.com/v1/widgets"}

func (e *env) createCRD() {
	e.t.Helper()
	err := e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").
		Body([]byte(widgetCRD)).SetHeader("Content-Type", "application/json").Do(e.ctx).Error()
	require.NoError(e.t, err, "create the CRD")
	// The resource is served once a list answers.
	for {
		err := e.c.Get().Group("example.com").Version("v1").Resource("widgets").Do(e.ctx).Error()
		if err == nil {
			return
		}
		require.True(e.t, rest.IsNotFound(err), "list widgets: %v", err)
		select {
		case <-e.ctx.Done():
			e.t.Fatal("the CRD's resource is never served")
		case <-time.After(time.Millisecond):
		}
	}
}

func (e *env) deleteCRD() {
	e.t.Helper()
	err := e.c.Delete().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").
		Name("widgets.example.com").Do(e.ctx).Error()
	require.NoError(e.t, err, "delete the CRD")
}

func (e *env) createWidget(ns, name string) *Widget {
	e.t.Helper()
	w := &Widget{TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "example.com/v1"}, ObjectMeta: meta.ObjectMeta{Name: name}}
	err := e.c.Post().Group("example.com").Version("v1").Namespace(ns).Resource("widgets").Body(w).Do(e.ctx).Into(w)
	require.NoError(e.t, err, "create widget %s/%s", ns, name)
	return w
}

// stateLog records a reflector's state changes and lets a test wait on
// them.
type stateLog struct {
	// mu guards states and changed.
	mu      sync.Mutex
	states  []reflector.State
	changed chan struct{}
}

func newStateLog() *stateLog { return &stateLog{changed: make(chan struct{})} }

func (l *stateLog) trace(ev reflector.TraceEvent) {
	sc, ok := ev.(reflector.StateChanged)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.states = append(l.states, sc.To)
	close(l.changed)
	l.changed = make(chan struct{})
}

// waitFor waits until cond holds for the states so far and returns them.
func (l *stateLog) waitFor(t *testing.T, what string, cond func([]reflector.State) bool) []reflector.State {
	t.Helper()
	deadline := time.NewTimer(testTimeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		states := append([]reflector.State(nil), l.states...)
		changed := l.changed
		l.mu.Unlock()
		if len(states) > 0 && cond(states) {
			return states
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waiting for %s; states: %v", what, states)
		}
	}
}

// waitGone waits for the n-th ResourceGone state (from 1) and returns it.
func (l *stateLog) waitGone(t *testing.T, n int) reflector.ResourceGone {
	t.Helper()
	var gone []reflector.ResourceGone
	l.waitFor(t, fmt.Sprintf("ResourceGone #%d", n), func(states []reflector.State) bool {
		gone = gone[:0]
		for _, s := range states {
			if g, ok := s.(reflector.ResourceGone); ok {
				gone = append(gone, g)
			}
		}
		return len(gone) >= n
	})
	return gone[n-1]
}

// stepUntilGone lets every backoff elapse on clk (a watch cut by the
// server is retried after one) until the reflector finds the resource
// gone, and returns that state.
func (l *stateLog) stepUntilGone(t *testing.T, clk *clock.Fake) reflector.ResourceGone {
	t.Helper()
	seen := 0
	for {
		states := l.waitFor(t, "the resource gone", func(s []reflector.State) bool {
			if len(s) <= seen {
				return false
			}
			switch s[len(s)-1].(type) {
			case reflector.ResourceGone, reflector.BackingOff:
				return true
			}
			return false
		})
		seen = len(states)
		switch s := states[len(states)-1].(type) {
		case reflector.ResourceGone:
			return s
		case reflector.BackingOff:
			probe(t, clk, reflector.ResourceGone{Delay: s.Delay})
		}
	}
}

// goneOptions probe a gone resource after 1s, 2s, then every 4s, on clk.
func goneOptions[T meta.Object](clk clock.Clock, states *stateLog, errs *errorLog) informer.Options[T] {
	return informer.Options[T]{
		Clock:   clk,
		OnError: errs.add,
		Reflector: reflector.Options{
			Clock:               clk,
			Backoff:             reflector.Backoff{Initial: time.Second, Max: 30 * time.Second, Jitter: reflector.NoJitter},
			ResourceGoneMaxWait: 4 * time.Second,
			Trace:               states.trace,
		},
	}
}

// probe lets the pending wait of gone elapse on clk.
func probe(t *testing.T, clk *clock.Fake, gone reflector.ResourceGone) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(t, clk.WaitForTimer(ctx, gone.Delay), "the wait before probe %d", gone.Probes+1)
	clk.Step(gone.Delay)
}

// TestInformerFollowsACRDDeletedAndCreatedAgain deletes the CRD of a
// watched resource and creates it again with other objects: the informer
// empties (the server's DELETED events), reports the resource gone once,
// probes it with growing waits on its clock, and refills once it is back.
func TestInformerFollowsACRDDeletedAndCreatedAgain(t *testing.T) {
	e := newEnv(t)
	e.createCRD()
	a := e.createWidget("default", "a")
	b := e.createWidget("default", "b")
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	states, errs := newStateLog(), newErrorLog()
	lw, err := reflector.NewListWatch[*Widget](e.c, widgetSource)
	require.NoError(t, err)
	inf, err := informer.New(lw, goneOptions[*Widget](clk, states, errs))
	require.NoError(t, err)
	rec := widgetRecorder{newRecorder()}
	_, err = inf.AddEventHandler(rec, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)
	assert.Nil(t, inf.Gone())

	e.deleteCRD()
	first := states.stepUntilGone(t, clk)
	assert.Zero(t, first.Probes)
	assert.Equal(t, time.Second, first.Delay)
	events := rec.waitFor(t, "a and b deleted", func(ev []string) bool { return len(ev) == 4 })
	assert.Equal(t, []string{"add default/a " + a.ResourceVersion + " initial", "add default/b " + b.ResourceVersion + " initial"}, events[:2])
	assert.Regexp(t, `^delete default/a \d+$`, events[2], "the server's DELETED events, not an unknown final state")
	assert.Regexp(t, `^delete default/b \d+$`, events[3])
	assert.Zero(t, inf.Indexer().Len())

	g := inf.Gone()
	require.NotNil(t, g)
	assert.Equal(t, first.Since, g.Since)
	var ge *reflector.GoneError
	require.ErrorAs(t, inf.SyncError(), &ge, "SyncError reports the resource gone though synced")
	assert.True(t, rest.IsNotFound(inf.SyncError()))

	// Two probes fail: 1s, then 2s later; the third waits 4s.
	probe(t, clk, first)
	second := states.waitGone(t, 2)
	assert.Equal(t, []any{1, 2 * time.Second, first.Since}, []any{second.Probes, second.Delay, second.Since})
	probe(t, clk, second)
	third := states.waitGone(t, 3)
	assert.Equal(t, 4*time.Second, third.Delay)

	e.createCRD()
	c := e.createWidget("default", "c")
	d := e.createWidget("kube-system", "d")
	probe(t, clk, third)
	rec.waitFor(t, "c and d", func(ev []string) bool { return len(ev) == 6 })
	assert.ElementsMatch(t, []string{"add default/c " + c.ResourceVersion, "add kube-system/d " + d.ResourceVersion}, rec.snapshot()[4:])
	states.waitFor(t, "a watch after the probe", func(s []reflector.State) bool {
		_, ok := s[len(s)-1].(reflector.Watching)
		return ok
	})
	assert.Nil(t, inf.Gone())
	assert.NoError(t, inf.SyncError())

	notFound := 0
	for _, err := range errs.all() {
		if rest.IsNotFound(err) {
			notFound++
		}
	}
	assert.Equal(t, 1, notFound, "the resource gone is reported once, not at each probe")
}

// TestResourceGoneKeepsOrEmptiesTheCache serves 404 for a resource whose
// objects still exist (an API group no longer served): the cache keeps
// them, or, with EmptyWhenGone, deletes them with finalStateUnknown; once
// the resource is served again the cache holds the server's objects.
func TestResourceGoneKeepsOrEmptiesTheCache(t *testing.T) {
	for _, empty := range []bool{false, true} {
		t.Run(map[bool]string{false: "keep", true: "empty"}[empty], func(t *testing.T) {
			e := newEnv(t)
			a := e.create("default", "a", nil)
			clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			states, errs := newStateLog(), newErrorLog()
			opts := goneOptions[*ConfigMap](clk, states, errs)
			opts.Reflector.EmptyWhenGone = empty
			inf := e.informerFor("default", opts)
			rec := e.startRecorded(inf)

			e.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Resource: "configmaps"}, Count: 1 << 20, Code: 404})
			e.srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutAbort)
			first := states.stepUntilGone(t, clk)
			if empty {
				rec.waitFor(t, "a deleted", func(ev []string) bool { return len(ev) == 2 })
				assert.Equal(t, "delete default/a "+a.ResourceVersion+" unknown", rec.snapshot()[1])
				assert.Zero(t, inf.Indexer().Len())
			} else {
				assert.Equal(t, []string{"add default/a " + a.ResourceVersion + " initial"}, rec.snapshot())
				assert.Equal(t, []string{"default/a"}, inf.Indexer().ListKeys(), "the cache keeps a")
			}
			e.srv.ClearFaults()
			b := e.create("default", "b", nil)
			probe(t, clk, first)
			events := rec.waitFor(t, "b", func(ev []string) bool { return len(ev) > 0 && ev[len(ev)-1] == "add default/b "+b.ResourceVersion })
			if empty {
				assert.Contains(t, events, "add default/a "+a.ResourceVersion)
			}
			assert.ElementsMatch(t, []string{"default/a", "default/b"}, inf.Indexer().ListKeys())
		})
	}
}

// TestFactoryReleaseLeavesNoWatch releases a factory's informer for a
// resource that is gone: its Run ends and the server has no watch left.
func TestFactoryReleaseLeavesNoWatch(t *testing.T) {
	e := newEnv(t)
	e.createCRD()
	e.createWidget("default", "a")
	f := informer.NewFactory(e.c, informer.FactoryOptions{Reflector: reflector.Options{Backoff: fastBackoff}})
	spec := informer.Spec[*Widget]{Source: widgetSource}
	inf, err := informer.For(f, spec)
	require.NoError(t, err)
	cms, err := informer.For(f, informer.Spec[*ConfigMap]{Source: reflector.Source{Resource: "configmaps"}})
	require.NoError(t, err)
	run(t, f)
	require.NoError(t, f.WaitForCacheSync(e.ctx))
	require.NoError(t, e.srv.WaitForWatchers(e.ctx, "widgets", 1))

	released, err := informer.Release(e.ctx, f, spec)
	require.NoError(t, err)
	assert.True(t, released)
	require.NoError(t, e.srv.AwaitWatchers(e.ctx, fakeapiserver.Match{Resource: "widgets"}, func(n int) bool { return n == 0 }),
		"no watch left behind")
	_, err = inf.AddEventHandler(widgetRecorder{newRecorder()}, informer.HandlerOptions{})
	assert.ErrorIs(t, err, informer.ErrStopped, "the released informer has stopped")
	released, err = informer.Release(e.ctx, f, spec)
	require.NoError(t, err)
	assert.False(t, released, "released already")
	assert.Equal(t, 1, e.srv.Watchers("configmaps"), "the other informer runs on")
	assert.True(t, cms.HasSynced())

	again, err := informer.For(f, spec)
	require.NoError(t, err)
	assert.NotSame(t, inf, again, "a released informer is forgotten")
	waitSynced(t, again)
	assert.Equal(t, []string{"default/a"}, again.Indexer().ListKeys())
}

// TestFactoryReleaseBeforeRun never starts a released informer.
func TestFactoryReleaseBeforeRun(t *testing.T) {
	e := newEnv(t)
	f := informer.NewFactory(e.c, informer.FactoryOptions{})
	spec := informer.Spec[*ConfigMap]{Source: reflector.Source{Resource: "configmaps"}}
	inf, err := informer.For(f, spec)
	require.NoError(t, err)
	released, err := informer.Release(e.ctx, f, spec)
	require.NoError(t, err)
	assert.True(t, released)
	run(t, f)
	require.NoError(t, f.WaitForCacheSync(e.ctx), "nothing left to wait for")
	assert.False(t, inf.HasSynced(), "never started")
}

// widgetRecorder records a widget informer's notifications as a recorder
// does.
type widgetRecorder struct{ *recorder }

func (w widgetRecorder) OnAdd(obj *Widget, initial bool)    { w.added(obj, initial) }
func (w widgetRecorder) OnUpdate(oldObj, newObj *Widget)    { w.updated(oldObj, newObj) }
func (w widgetRecorder) OnDelete(obj *Widget, unknown bool) { w.deleted(obj, unknown) }

// all returns every error reported so far.
func (l *errorLog) all() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.errs...)
}
