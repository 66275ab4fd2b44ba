package informer_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/metrics"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// seedConfigMaps loads n ConfigMaps named cm-<i> into namespace ns of srv,
// in manifests of 5,000 from two goroutines (the server's create path,
// without a request each; a manifest is bounded like a request body).
func seedConfigMaps(t *testing.T, srv *fakeapiserver.Server, ns string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), shardTimeout)
	defer cancel()
	ns = strconv.Quote(ns)
	require.NoError(t, srv.Load(ctx, []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":`+ns+`}}`)))
	const chunk = 5_000
	var wg sync.WaitGroup
	errs := make(chan error, (n+chunk-1)/chunk)
	for w := range 2 {
		wg.Go(func() {
			for from := w * chunk; from < n; from += 2 * chunk {
				var b strings.Builder
				b.WriteString(`{"apiVersion":"v1","kind":"List","items":[`)
				for i := from; i < min(from+chunk, n); i++ {
					if i > from {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%06d","namespace":%s},"data":{"v":"0"}}`, i, ns)
				}
				b.WriteString("]}")
				if err := srv.Load(ctx, []byte(b.String())); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
}

// Four informers, each with one shard of four, hold every one of
// shardObjects ConfigMaps (100,000 with the load build tag, 4,000
// without) exactly once: after the first list, and again after churn
// (creates, updates, deletes) during which every shard's watch is cut and
// the history compacted, so each shard relists.
func TestShardsCoverEveryObjectOnceThroughChurnAndRelists(t *testing.T) {
	const ns = "sharded"
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{ShardedListAndWatch: true})
	start := time.Now()
	seedConfigMaps(t, srv, ns, shardObjects)
	t.Logf("seeded in %v", time.Since(start))
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), shardTimeout)
	defer cancel()

	shards := make([]reflector.Shard, 4)
	infs := make([]*informer.Informer[*ConfigMap], 4)
	var expired atomic.Int32
	var sink metrics.Registry
	syncers := make([]informer.Syncer, 4)
	for i := range shards {
		shards[i], err = reflector.ShardOf(i, 4)
		require.NoError(t, err)
		lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: ns})
		require.NoError(t, err)
		infs[i], err = informer.New(lw, informer.Options[*ConfigMap]{
			Name: fmt.Sprintf("configmaps-shard-%d", i),
			OnError: func(err error) {
				var re *reflector.Error
				if errors.As(err, &re) && re.Class == reflector.ClassExpired {
					expired.Add(1)
				}
			},
			Reflector: reflector.Options{Shard: &shards[i], PageSize: 5000, Backoff: fastBackoff, Metrics: &sink},
		})
		require.NoError(t, err)
		syncers[i] = infs[i]
		run(t, infs[i])
	}
	require.NoError(t, informer.WaitForCacheSync(ctx, syncers...))
	t.Logf("synced in %v", time.Since(start))
	checkShards(t, ctx, c, ns, shards, infs)
	t.Logf("checked in %v", time.Since(start))

	// Churn, with every watch cut after a compaction, twice.
	e := &env{t: t, srv: srv, c: c, ctx: ctx}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 300 {
			e.create(ns, fmt.Sprintf("new-%03d", i), nil)
			e.update(&ConfigMap{TypeMeta: meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
				ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i*7), Namespace: ns}}, map[string]string{"v": "1"})
			e.remove(ns, fmt.Sprintf("cm-%06d", i*7+3))
		}
	})
	for range 2 {
		require.NoError(t, srv.WaitForWatchers(ctx, "configmaps", 4))
		srv.CompactNow()
		require.Equal(t, 4, srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutAbort))
	}
	wg.Wait()
	t.Logf("churned in %v", time.Since(start))
	checkShards(t, ctx, c, ns, shards, infs)
	t.Logf("checked in %v", time.Since(start))
	require.NotZero(t, expired.Load(), "a cut watch resumed from a compacted resourceVersion and relisted")
	for _, m := range sink.Snapshot() {
		if m.Name == "kubecache_reflector_relists_total" || m.Name == "kubecache_reflector_lists_total" {
			t.Logf("%s%v: %v", m.Name, m.Labels, m.Value)
		}
	}
}

// checkShards waits until each informer holds exactly its shard of what
// the server holds now, and checks the shards together hold every object
// once.
func checkShards(t *testing.T, ctx context.Context, c *rest.Client, ns string, shards []reflector.Shard, infs []*informer.Informer[*ConfigMap]) {
	t.Helper()
	list, err := rest.ListAs[*ConfigMap](ctx, c.Get().Namespace(ns).Resource("configmaps"))
	require.NoError(t, err)
	want := make([]map[string]string, len(shards))
	for i := range want {
		want[i] = map[string]string{}
	}
	for _, cm := range list.Items {
		n := 0
		for i, s := range shards {
			if s.Contains(&cm.ObjectMeta) {
				want[i][cm.Name] = cm.ResourceVersion
				n++
			}
		}
		require.Equal(t, 1, n, "%s is in %d shards", cm.Name, n)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i, inf := range infs {
		for !sameContents(inf, want[i]) {
			select {
			case <-tick.C:
			case <-ctx.Done():
				t.Fatalf("shard %d never held its %d objects (holds %d)", i, len(want[i]), len(inf.Indexer().List()))
			}
		}
	}
	total := 0
	sizes := make([]int, len(want))
	for i := range want {
		total += len(want[i])
		sizes[i] = len(want[i])
	}
	require.Equal(t, len(list.Items), total)
	t.Logf("%d objects, per shard %v", total, sizes)
}

// sameContents reports whether inf holds exactly the names and
// resourceVersions of want.
func sameContents(inf *informer.Informer[*ConfigMap], want map[string]string) bool {
	got := inf.Indexer().List()
	if len(got) != len(want) {
		return false
	}
	for _, cm := range got {
		if want[cm.Name] != cm.ResourceVersion {
			return false
		}
	}
	return true
}
