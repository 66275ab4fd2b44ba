package informer_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/selector"
)

func TestHandlerSeesInitialListThenChangesInServerOrder(t *testing.T) {
	for _, q := range []informer.QueueKind{informer.InOrder, informer.DeltaFIFO} {
		t.Run(map[informer.QueueKind]string{informer.InOrder: "InOrder", informer.DeltaFIFO: "DeltaFIFO"}[q], func(t *testing.T) {
			e := newEnv(t)
			a := e.create("default", "a", nil)
			b := e.create("default", "b", nil)
			inf := e.informerFor("default", informer.Options[*ConfigMap]{Queue: q})
			rec := newRecorder()
			reg, err := inf.AddEventHandler(rec, informer.HandlerOptions{Name: "rec"})
			require.NoError(t, err)
			assert.False(t, reg.HasSynced(), "HasSynced before Run")
			run(t, inf)
			waitSynced(t, inf, reg)

			assert.ElementsMatch(t, []string{
				"add default/a " + a.ResourceVersion + " initial",
				"add default/b " + b.ResourceVersion + " initial",
			}, rec.snapshot())
			assert.Equal(t, []string{"default/a", "default/b"}, sorted(inf.Indexer().ListKeys()))

			// Changes arrive one by one, in the order the server made them.
			a2 := e.update(a, map[string]string{"k": "1"})
			c := e.create("default", "c", nil)
			e.remove("default", "b")
			a3 := e.update(a2, map[string]string{"k": "2"})
			events := rec.waitLen(t, 6)[2:]
			i := slices.IndexFunc(events, func(ev string) bool { return strings.HasPrefix(ev, "delete ") })
			require.GreaterOrEqual(t, i, 0, "the delete of b in %q", events)
			want := []string{
				"update default/a " + a.ResourceVersion + "->" + a2.ResourceVersion,
				"add default/c " + c.ResourceVersion,
				"delete default/b " + deletedRV(events[i]),
				"update default/a " + a2.ResourceVersion + "->" + a3.ResourceVersion,
			}
			if q == informer.InOrder {
				assert.Equal(t, want, events)
			} else {
				// A DeltaFIFO keeps each key's changes in order and its
				// place in the queue: a's second update is handed over
				// with its first if both were queued before a was popped.
				assert.ElementsMatch(t, want, events)
				assert.Less(t, slices.Index(events, want[0]), slices.Index(events, want[3]), "a's updates in order: %q", events)
			}

			got, err := inf.Lister().Namespace("default").Get("a")
			require.NoError(t, err)
			assert.Equal(t, "2", got.Data["k"], "the lister serves the newest state")
			assert.Equal(t, "configmaps/rec", reg.Name())
		})
	}
}

// deletedRV returns the resourceVersion field of a "delete" event line.
func deletedRV(ev string) string {
	var op, key, rv string
	_, _ = fmtSscan(ev, &op, &key, &rv)
	return rv
}

func TestLabelSelectorRestrictsTheCache(t *testing.T) {
	e := newEnv(t)
	e.createLabelled("default", "keep", map[string]string{"app": "web"})
	e.createLabelled("default", "drop", map[string]string{"app": "db"})
	lw, err := reflector.NewListWatch[*ConfigMap](e.c, reflector.Source{Resource: "configmaps", LabelSelector: "app=web"})
	require.NoError(t, err)
	inf, err := informer.New(lw, informer.Options[*ConfigMap]{})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)
	assert.Equal(t, []string{"default/keep"}, inf.Indexer().ListKeys())
	web, err := selector.ParseLabels("app=web")
	require.NoError(t, err)
	assert.Len(t, inf.Lister().List(web), 1)
}

func TestLifecycleErrors(t *testing.T) {
	e := newEnv(t)
	inf := e.informerFor("", informer.Options[*ConfigMap]{})

	_, err := inf.AddEventHandler(nil, informer.HandlerOptions{})
	assert.ErrorIs(t, err, informer.ErrInvalidOptions, "nil handler")
	var nilRec *recorder
	_, err = inf.AddEventHandler(nilRec, informer.HandlerOptions{})
	assert.ErrorIs(t, err, informer.ErrInvalidOptions, "nil pointer handler")
	_, err = inf.AddEventHandler(newRecorder(), informer.HandlerOptions{ResyncPeriod: -1})
	assert.ErrorIs(t, err, informer.ErrInvalidOptions, "negative resync")

	stop := run(t, inf)
	waitSynced(t, inf)
	assert.ErrorIs(t, inf.Run(context.Background()), informer.ErrAlreadyStarted)
	stop()
	_, err = inf.AddEventHandler(newRecorder(), informer.HandlerOptions{})
	assert.ErrorIs(t, err, informer.ErrStopped)

	_, err = informer.New(nil, informer.Options[*ConfigMap]{})
	assert.Error(t, err, "nil ListerWatcher")
	lw, err := reflector.NewListWatch[*ConfigMap](e.c, reflector.Source{Resource: "configmaps"})
	require.NoError(t, err)
	for name, opts := range map[string]informer.Options[*ConfigMap]{
		"queue kind":       {Queue: 7},
		"reflector resync": {Reflector: reflectorOptionsWithResync()},
		"transform func":   {Transform: informer.Transform[*ConfigMap]{Name: "x"}},
	} {
		_, err := informer.New(lw, opts)
		assert.ErrorIs(t, err, informer.ErrInvalidOptions, name)
	}
}

func TestMetadataOnlyInformerAsksForPartialObjectMetadata(t *testing.T) {
	e := newEnv(t)
	e.createLabelled("default", "a", map[string]string{"app": "web"})
	lw, err := reflector.NewListWatch[*meta.PartialObjectMetadata](e.c, reflector.Source{Resource: "configmaps", Namespace: "default"})
	require.NoError(t, err)
	inf, err := informer.New(lw, informer.Options[*meta.PartialObjectMetadata]{})
	require.NoError(t, err)
	kinds := make(chan string, 10)
	_, err = inf.AddEventHandler(informer.HandlerFuncs[*meta.PartialObjectMetadata]{
		AddFunc: func(obj *meta.PartialObjectMetadata, _ bool) { kinds <- obj.Name + " " + obj.Kind },
	}, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)
	// The server only sends kind PartialObjectMetadata when asked to.
	assert.Equal(t, "a PartialObjectMetadata", <-kinds, "from the initial list")
	e.createLabelled("default", "b", map[string]string{"app": "db"})
	assert.Equal(t, "b PartialObjectMetadata", <-kinds, "from the watch")
	got, err := inf.Lister().Namespace("default").Get("a")
	require.NoError(t, err)
	assert.Equal(t, "web", got.Labels["app"])
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
