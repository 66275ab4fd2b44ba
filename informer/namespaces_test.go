package informer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// Namespace is a core/v1 Namespace with what the tests set.
type Namespace struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

func (e *env) createNamespace(name string, labels map[string]string) *Namespace {
	e.t.Helper()
	ns := &Namespace{TypeMeta: meta.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: meta.ObjectMeta{Name: name, Labels: labels}}
	require.NoError(e.t, e.c.Post().Resource("namespaces").Body(ns).Do(e.ctx).Into(ns), "create namespace %s", name)
	return ns
}

func (e *env) labelNamespace(ns *Namespace, labels map[string]string) *Namespace {
	e.t.Helper()
	in := *ns
	in.Labels = labels
	out := &Namespace{}
	require.NoError(e.t, e.c.Put().Resource("namespaces").Name(ns.Name).Body(&in).Do(e.ctx).Into(out), "label namespace %s", ns.Name)
	return out
}

// multiFor builds an informer over namespaces of configmaps, with fast
// retries.
func (e *env) multiFor(opts informer.MultiNamespaceOptions[*ConfigMap]) *informer.MultiNamespaceInformer[*ConfigMap] {
	e.t.Helper()
	if opts.Reflector.Backoff == (reflector.Backoff{}) {
		opts.Reflector.Backoff = fastBackoff
	}
	m, err := informer.NewMultiNamespace(e.c, reflector.Source{Resource: "configmaps"}, opts)
	require.NoError(e.t, err)
	return m
}

// watchesIn waits until the server has n watches of configmaps in ns.
func (e *env) watchesIn(ns string, n int) {
	e.t.Helper()
	require.NoError(e.t, e.srv.AwaitWatchers(e.ctx, fakeapiserver.Match{Resource: "configmaps", Namespace: ns}, func(have int) bool { return have == n }))
}

// withPrefix returns the events about keys under prefix ("a/").
func withPrefix(events []string, prefix string) []string {
	var out []string
	for _, ev := range events {
		if f := strings.Fields(ev); len(f) > 1 && strings.HasPrefix(f[1], prefix) {
			out = append(out, ev)
		}
	}
	return out
}

func TestMultiNamespaceInformerMergesItsNamespaces(t *testing.T) {
	e := newEnv(t)
	for _, ns := range []string{"a", "b", "c"} {
		e.createNamespace(ns, nil)
	}
	a1 := e.create("a", "one", nil)
	b1 := e.create("b", "one", nil)
	c1 := e.create("c", "one", nil)
	m := e.multiFor(informer.MultiNamespaceOptions[*ConfigMap]{Namespaces: []string{"b", "a", "b"}})
	rec := newRecorder()
	_, err := m.AddEventHandler(rec, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, m)
	waitSynced(t, m)
	assert.ElementsMatch(t, []string{"add a/one " + a1.ResourceVersion + " initial", "add b/one " + b1.ResourceVersion + " initial"}, rec.waitLen(t, 2))
	assert.ElementsMatch(t, []string{"a/one", "b/one"}, m.Indexer().ListKeys())
	e.watchesIn("a", 1)
	e.watchesIn("b", 1)
	assert.Equal(t, 2, e.srv.Watchers("configmaps"), "one watch per namespace")
	st := m.Namespaces()
	require.Len(t, st, 2)
	assert.Equal(t, []string{"a", "b"}, []string{st[0].Namespace, st[1].Namespace})
	assert.True(t, st[0].Synced && st[1].Synced)

	// Changes in the set arrive; a change outside it does not.
	e.update(c1, map[string]string{"k": "v"})
	a2 := e.update(a1, map[string]string{"k": "v"})
	rec.waitLen(t, 3)
	require.NoError(t, m.WaitForNamespaceFreshness(e.ctx, "a", a2.ResourceVersion))
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	var stale *informer.StaleCacheError
	require.ErrorAs(t, m.WaitForFreshness(ctx, a2.ResourceVersion), &stale,
		"the set as a whole waits for b to hear of a's write too (a bookmark)")
	assert.Equal(t, st[1].ResourceVersion, stale.Have, "b's, the oldest namespace's")
	got, err := m.Lister().Get("a/one")
	require.NoError(t, err)
	assert.Equal(t, a2.ResourceVersion, got.ResourceVersion)
	assert.Error(t, m.WaitForNamespaceFreshness(e.ctx, "c", a2.ResourceVersion), "c is not in the set")

	// A namespace added at run time brings its objects, not initial.
	require.NoError(t, m.AddNamespace("c"))
	rec.waitFor(t, "c's object", func(ev []string) bool { return len(withPrefix(ev, "c/")) == 1 })
	assert.Regexp(t, `^add c/one \d+$`, withPrefix(rec.snapshot(), "c/")[0])
	e.watchesIn("c", 1)

	// A namespace removed: its objects are deleted, final state unknown,
	// and its watch is closed.
	require.NoError(t, m.RemoveNamespace(e.ctx, "a"))
	events := rec.waitFor(t, "a's object deleted", func(ev []string) bool { return len(withPrefix(ev, "a/")) == 3 })
	assert.Equal(t, "delete a/one "+a2.ResourceVersion+" unknown", withPrefix(events, "a/")[2])
	e.watchesIn("a", 0)
	assert.ElementsMatch(t, []string{"b/one", "c/one"}, m.Indexer().ListKeys())
	assert.NoError(t, m.RemoveNamespace(e.ctx, "a"), "removing twice does nothing")
	assert.NoError(t, m.AddNamespace("b"), "adding twice does nothing")
	assert.ErrorIs(t, m.AddNamespace(""), informer.ErrInvalidOptions)
}

// twoNamespaces makes namespaces a (with a/one) and b, and an informer
// over both with a recorder and an error log, not yet running.
func twoNamespaces(t *testing.T) (*env, *informer.MultiNamespaceInformer[*ConfigMap], *recorder, *errorLog) {
	e := newEnv(t)
	e.createNamespace("a", nil)
	e.createNamespace("b", nil)
	e.create("a", "one", nil)
	errs := newErrorLog()
	m := e.multiFor(informer.MultiNamespaceOptions[*ConfigMap]{Namespaces: []string{"a", "b"}, Options: informer.Options[*ConfigMap]{OnError: errs.add}})
	rec := newRecorder()
	_, err := m.AddEventHandler(rec, informer.HandlerOptions{})
	require.NoError(t, err)
	return e, m, rec, errs
}

// TestMultiNamespaceRelistTouchesOneNamespace cuts one namespace's watch
// while its history is compacted: that namespace relists (410), and the
// other is neither listed again nor told anything.
func TestMultiNamespaceRelistTouchesOneNamespace(t *testing.T) {
	e, m, rec, errs := twoNamespaces(t)
	b1, b2 := e.create("b", "one", nil), e.create("b", "two", nil)
	run(t, m)
	waitSynced(t, m)
	e.watchesIn("a", 1)
	e.watchesIn("b", 1)

	e.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps", Namespace: "b"}, Count: 1 << 20, Code: 503})
	require.Equal(t, 1, e.srv.CutWatches(fakeapiserver.Match{Resource: "configmaps", Namespace: "b"}, fakeapiserver.CutAbort))
	errs.waitFor(t, "a refused watch in b", func(err error) bool { return rest.IsServiceUnavailable(err) })
	e.remove("b", "two")
	b1v2 := e.update(b1, map[string]string{"k": "v"})
	e.srv.CompactNow()
	e.srv.ClearFaults()
	errs.waitFor(t, "the 410 that makes b relist", func(err error) bool { return rest.IsGone(err) })

	events := rec.waitFor(t, "b's relist", func(ev []string) bool { return len(ev) == 5 })
	assert.ElementsMatch(t, []string{
		"update b/one " + b1.ResourceVersion + "->" + b1v2.ResourceVersion,
		"delete b/two " + b2.ResourceVersion + " unknown",
	}, events[3:])
	assert.Len(t, withPrefix(events, "a/"), 1, "a was not relisted: no update of its unchanged object")
	a2 := e.create("a", "two", nil)
	require.NoError(t, m.WaitForNamespaceFreshness(e.ctx, "a", a2.ResourceVersion))
	assert.ElementsMatch(t, []string{"a/one", "a/two", "b/one"}, m.Indexer().ListKeys())
}

// TestMultiNamespaceRemovedWhileItsWatchIsCut removes a namespace whose
// watch is cut and cannot reopen: its objects go, and once the server
// lets watches through again none is opened in it.
func TestMultiNamespaceRemovedWhileItsWatchIsCut(t *testing.T) {
	e, m, rec, errs := twoNamespaces(t)
	b1 := e.create("b", "one", nil)
	run(t, m)
	waitSynced(t, m)
	e.watchesIn("b", 1)

	e.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Resource: "configmaps", Namespace: "b"}, Count: 1 << 20, Code: 503})
	e.srv.CutWatches(fakeapiserver.Match{Resource: "configmaps", Namespace: "b"}, fakeapiserver.CutAbort)
	errs.waitFor(t, "a refused watch in b", func(err error) bool { return rest.IsServiceUnavailable(err) })
	require.NoError(t, m.RemoveNamespace(e.ctx, "b"))
	rec.waitFor(t, "b's object deleted", func(ev []string) bool { return len(ev) == 3 })
	assert.Equal(t, "delete b/one "+b1.ResourceVersion+" unknown", rec.snapshot()[2])

	e.srv.ClearFaults()
	e.create("b", "two", nil)
	a2 := e.create("a", "two", nil)
	require.NoError(t, m.WaitForFreshness(e.ctx, a2.ResourceVersion))
	assert.ElementsMatch(t, []string{"a/one", "a/two"}, m.Indexer().ListKeys())
	assert.Zero(t, e.srv.Watchers("configmaps")-1, "only a's watch is open")
	e.watchesIn("b", 0)
	assert.Equal(t, []string{"a"}, []string{m.Namespaces()[0].Namespace})
}

func TestMultiNamespaceInformerFollowsANamespaceSelector(t *testing.T) {
	e := newEnv(t)
	x := e.createNamespace("x", map[string]string{"team": "blue"})
	y := e.createNamespace("y", nil)
	e.create("x", "one", nil)
	e.create("y", "one", nil)
	m := e.multiFor(informer.MultiNamespaceOptions[*ConfigMap]{NamespaceSelector: "team=blue"})
	rec := newRecorder()
	_, err := m.AddEventHandler(rec, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, m)
	waitSynced(t, m)
	assert.Equal(t, []string{"x/one"}, m.Indexer().ListKeys())
	assert.ErrorIs(t, m.AddNamespace("y"), informer.ErrInvalidOptions, "the set follows the selector")

	e.labelNamespace(y, map[string]string{"team": "blue"})
	rec.waitFor(t, "y's object", func(ev []string) bool { return len(withPrefix(ev, "y/")) == 1 })
	e.labelNamespace(x, map[string]string{"team": "red"})
	rec.waitFor(t, "x's object forgotten", func(ev []string) bool { return len(withPrefix(ev, "x/")) == 2 })
	assert.Regexp(t, `^delete x/one \d+ unknown$`, withPrefix(rec.snapshot(), "x/")[1])
	assert.Equal(t, []string{"y/one"}, m.Indexer().ListKeys())
	e.watchesIn("x", 0)
	e.watchesIn("y", 1)
}

func TestMultiNamespaceInformerWithNoNamespaceSyncsEmpty(t *testing.T) {
	e := newEnv(t)
	m := e.multiFor(informer.MultiNamespaceOptions[*ConfigMap]{})
	run(t, m)
	waitSynced(t, m)
	assert.Zero(t, m.Indexer().Len())
	for name, opts := range map[string]informer.MultiNamespaceOptions[*ConfigMap]{
		"both":         {Namespaces: []string{"a"}, NamespaceSelector: "x=y"},
		"bad selector": {NamespaceSelector: "=="},
		"every":        {Namespaces: []string{""}},
	} {
		_, err := informer.NewMultiNamespace(e.c, reflector.Source{Resource: "configmaps"}, opts)
		assert.ErrorIs(t, err, informer.ErrInvalidOptions, name)
	}
	_, err := informer.NewMultiNamespace(e.c, reflector.Source{Resource: "configmaps", Namespace: "a"}, informer.MultiNamespaceOptions[*ConfigMap]{})
	assert.ErrorIs(t, err, informer.ErrInvalidOptions, "a Source namespace")
}

func TestFactorySharesMultiNamespaceInformers(t *testing.T) {
	e := newEnv(t)
	e.createNamespace("a", nil)
	e.createNamespace("b", nil)
	e.create("b", "one", nil)
	f := informer.NewFactory(e.c, informer.FactoryOptions{Reflector: reflector.Options{Backoff: fastBackoff}})
	spec := func(ns ...string) informer.NamespacesSpec[*ConfigMap] {
		return informer.NamespacesSpec[*ConfigMap]{Spec: informer.Spec[*ConfigMap]{Source: reflector.Source{Resource: "configmaps"}}, Namespaces: ns}
	}
	ab, err := informer.ForNamespaces(f, spec("a", "b"))
	require.NoError(t, err)
	ba, err := informer.ForNamespaces(f, spec("b", "a", "a"))
	require.NoError(t, err)
	assert.Same(t, ab, ba, "the same set, the same informer")
	onlyA, err := informer.ForNamespaces(f, spec("a"))
	require.NoError(t, err)
	assert.NotSame(t, ab, onlyA)
	sel, err := informer.ForNamespaces(f, informer.NamespacesSpec[*ConfigMap]{Spec: spec().Spec, NamespaceSelector: "team=a"})
	require.NoError(t, err)
	assert.NotSame(t, ab, sel)
	plain, err := informer.For(f, spec().Spec)
	require.NoError(t, err)
	assert.NotSame(t, ab.Informer, plain)

	run(t, f)
	require.NoError(t, f.WaitForCacheSync(e.ctx))
	assert.Equal(t, []string{"b/one"}, ab.Indexer().ListKeys())
	released, err := informer.ReleaseNamespaces(e.ctx, f, spec("a", "b"))
	require.NoError(t, err)
	assert.True(t, released)
	e.watchesIn("b", 0)
	again, err := informer.ForNamespaces(f, spec("a", "b"))
	require.NoError(t, err)
	assert.NotSame(t, ab, again)
	waitSynced(t, again)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	assert.NoError(t, again.WaitForNamespaceFreshness(ctx, "b", again.Namespaces()[1].ResourceVersion))
}
