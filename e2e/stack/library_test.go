package stack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/e2e/internal/target"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/metrics"
	"github.com/kubecache/kubecache/metrics/promtext"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/workqueue"
)

// The informer library's own features against the target: shards,
// freshness, predicates, the priority work queue and metrics.

// runInformer runs inf until the test ends and waits for its first sync.
func runInformer(t *testing.T, inf informer.Syncer, run func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	sctx, scancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer scancel()
	require.NoError(t, informer.WaitForCacheSync(sctx, inf))
}

// configMapInformer is an informer of the ConfigMaps of ns.
func configMapInformer(t *testing.T, c *rest.Client, ns string, opts informer.Options[*ConfigMap]) *informer.Informer[*ConfigMap] {
	t.Helper()
	lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: ns})
	require.NoError(t, err)
	inf, err := informer.New(lw, opts)
	require.NoError(t, err)
	return inf
}

// receive waits up to a minute for a value on ch.
func receive[V any](t *testing.T, ch <-chan V, what string) V {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("still waiting for %s", what)
	}
	var zero V
	return zero
}

// changes returns a handler that signals ch after every notification,
// without blocking, and the channel.
func changes() (informer.HandlerFuncs[*ConfigMap], chan struct{}) {
	ch := make(chan struct{}, 1)
	poke := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return informer.HandlerFuncs[*ConfigMap]{
		AddFunc:    func(*ConfigMap, bool) { poke() },
		UpdateFunc: func(_, _ *ConfigMap) { poke() },
		DeleteFunc: func(*ConfigMap, bool) { poke() },
	}, ch
}

// awaitChange waits up to a minute for cond, checking it again after each
// signal on changed.
func awaitChange(t *testing.T, what string, changed <-chan struct{}, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("still waiting for %s", what)
		}
	}
}

// Four informers, each with one shard of four (the ShardedListAndWatch
// feature gate: on for the real server of make e2e and for the fake),
// hold every ConfigMap of a namespace exactly once, after the list and
// after changes.
func TestShardedInformers(t *testing.T) {
	tgt := target.Get(t)
	ns := tgt.Namespace(t)
	c := client(t)
	for i := range 60 {
		createCM(t, c, ns, fmt.Sprintf("cm-%02d", i), "1")
	}
	probe, err := rest.ListAs[*ConfigMap](t.Context(), c.Get().Namespace(ns).Resource("configmaps").
		Param("shardSelector", reflector.Shard{Last: 1<<63 - 1}.Selector()))
	require.NoError(t, err)
	if probe.ShardInfo == nil {
		require.Equal(t, target.Kubeconfig, tgt.Kind, "the real server of make e2e and the fake serve shardSelector")
		t.Skipf("%s does not serve shardSelector (its ShardedListAndWatch feature gate is off)", tgt)
	}

	infs := make([]*informer.Informer[*ConfigMap], 4)
	shards := make([]reflector.Shard, 4)
	h, changed := changes()
	for i := range infs {
		shards[i], err = reflector.ShardOf(i, 4)
		require.NoError(t, err)
		infs[i] = configMapInformer(t, c, ns, informer.Options[*ConfigMap]{
			Name: fmt.Sprintf("shard-%d", i), Reflector: reflector.Options{Shard: &shards[i]}})
		_, err := infs[i].AddEventHandler(h, informer.HandlerOptions{})
		require.NoError(t, err)
		runInformer(t, infs[i], infs[i].Run)
	}
	check := func() bool {
		list, err := rest.ListAs[*ConfigMap](t.Context(), c.Get().Namespace(ns).Resource("configmaps"))
		require.NoError(t, err)
		total := 0
		for i, inf := range infs {
			for _, cm := range inf.Indexer().List() {
				require.True(t, shards[i].Contains(&cm.ObjectMeta), "shard %d holds %s", i, cm.Name)
			}
			total += inf.Indexer().Len()
		}
		if total != len(list.Items) {
			return false
		}
		for _, cm := range list.Items {
			n := 0
			for i, inf := range infs {
				if got, ok := inf.Indexer().GetByKey(meta.Key(cm)); ok {
					require.True(t, shards[i].Contains(&cm.ObjectMeta))
					if got.ResourceVersion == cm.ResourceVersion {
						n++
					}
				}
			}
			if n != 1 {
				return false
			}
		}
		return true
	}
	awaitChange(t, "the shards to hold every object once", changed, check)
	for i := range 20 {
		require.NoError(t, c.Delete().Namespace(ns).Resource("configmaps").Name(fmt.Sprintf("cm-%02d", i)).Do(t.Context()).Error())
		createCM(t, c, ns, fmt.Sprintf("new-%02d", i), "1")
	}
	awaitChange(t, "the shards to follow the changes", changed, check)
}

// WaitForFreshness returns once the cache reflects a write, and OnSynced
// hears of the list.
func TestFreshnessAndSynced(t *testing.T) {
	ns := target.Get(t).Namespace(t)
	c := client(t)
	createCM(t, c, ns, "a", "1")
	inf := configMapInformer(t, c, ns, informer.Options[*ConfigMap]{})
	synced := make(chan string, 10)
	reg, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{}, informer.HandlerOptions{OnSynced: func(rv string) { synced <- rv }})
	require.NoError(t, err)
	runInformer(t, inf, inf.Run)
	assert.NotEmpty(t, receive(t, synced, "OnSynced"))
	<-reg.Synced()

	var out ConfigMap
	require.NoError(t, c.Post().Namespace(ns).Resource("configmaps").
		Body(&ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "b"}}).Do(t.Context()).Into(&out))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, inf.WaitForFreshness(ctx, out.ResourceVersion))
	got, err := inf.Lister().Namespace(ns).Get("b")
	require.NoError(t, err, "fresh: the write is in the cache")
	assert.Equal(t, out.ResourceVersion, got.ResourceVersion)
}

// A handler with LabelsChanged hears of a label change, not of a data
// change.
func TestPredicateLabelsChanged(t *testing.T) {
	ns := target.Get(t).Namespace(t)
	c := client(t)
	createCM(t, c, ns, "a", "1")
	inf := configMapInformer(t, c, ns, informer.Options[*ConfigMap]{})
	updates := make(chan string, 10)
	_, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		UpdateFunc: func(_, cm *ConfigMap) { updates <- cm.Labels["l"] + "/" + cm.Data["v"] },
	}, informer.HandlerOptions{Predicate: informer.LabelsChanged()})
	require.NoError(t, err)
	runInformer(t, inf, inf.Run)
	patch := func(body string) {
		require.NoError(t, c.Patch(rest.PatchType("application/merge-patch+json")).Namespace(ns).Resource("configmaps").Name("a").
			Body([]byte(body)).Do(t.Context()).Error())
	}
	patch(`{"data":{"v":"2"}}`)
	patch(`{"metadata":{"labels":{"l":"x"}},"data":{"v":"3"}}`)
	assert.Equal(t, "x/3", receive(t, updates, "the label change"), "the data-only change never reached the handler")
}

// Items of the initial list wait behind items of live events in the
// priority work queue.
func TestPriorityQueueLiveBeforeInitial(t *testing.T) {
	ns := target.Get(t).Namespace(t)
	c := client(t)
	for i := range 5 {
		createCM(t, c, ns, fmt.Sprintf("old-%d", i), "1")
	}
	q := workqueue.New(workqueue.Options[string]{})
	t.Cleanup(q.ShutDown)
	inf := configMapInformer(t, c, ns, informer.Options[*ConfigMap]{})
	live := make(chan struct{}, 1)
	_, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(cm *ConfigMap, initial bool) {
			q.AddInitial(meta.Key(cm), initial)
			if !initial {
				live <- struct{}{}
			}
		},
	}, informer.HandlerOptions{})
	require.NoError(t, err)
	runInformer(t, inf, inf.Run)
	createCM(t, c, ns, "new", "1")
	receive(t, live, "the add of the new ConfigMap")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	first, err := q.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, ns+"/new", first, "the live add comes before the five of the initial list")
	q.Done(first)
}

// An informer's metrics, written in the Prometheus text format.
func TestInformerMetrics(t *testing.T) {
	ns := target.Get(t).Namespace(t)
	c := client(t)
	createCM(t, c, ns, "a", "1")
	var reg metrics.Registry
	inf := configMapInformer(t, c, ns, informer.Options[*ConfigMap]{Name: "cms", Metrics: &reg})
	adds := make(chan struct{}, 2)
	_, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{AddFunc: func(*ConfigMap, bool) { adds <- struct{}{} }},
		informer.HandlerOptions{Name: "count"})
	require.NoError(t, err)
	runInformer(t, inf, inf.Run)
	createCM(t, c, ns, "b", "1")
	for range 2 {
		receive(t, adds, "two adds")
	}
	var buf bytes.Buffer
	require.NoError(t, promtext.Write(&buf, reg.Snapshot()))
	text := buf.String()
	for _, want := range []string{
		`kubecache_informer_events_total{informer="cms",type="add"} 2`,
		`kubecache_informer_store_objects{informer="cms"} 2`,
		`kubecache_reflector_lists_total{reflector="cms",result="ok"} 1`,
		`kubecache_informer_handler_latency_seconds_count{informer="cms",handler="count"} 2`,
	} {
		assert.Contains(t, text, want)
	}
	assert.False(t, errors.Is(inf.SyncError(), reflector.ErrShardNotServed))
}
