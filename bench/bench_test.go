package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/bench"
	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// The suite's fixed data set: testdata/pod.json, a 4,962-byte pod with
// labels, annotations, an owner, two managedFields entries, a container
// and conditions, and variants of it with distinct names, uids and
// resourceVersions.
//
//	go test -run '^$' -bench . -benchmem ./bench/

func podJSON(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile("testdata/pod.json")
	require.NoError(tb, err)
	return data
}

// variant returns the pod renamed to name-i in namespace ns-(i%10), with a
// uid and resourceVersion of its own.
func variant(tb testing.TB, base []byte, i int) []byte {
	tb.Helper()
	var obj map[string]any
	require.NoError(tb, json.Unmarshal(base, &obj))
	md := obj["metadata"].(map[string]any)
	md["name"] = fmt.Sprintf("web-%06d", i)
	md["namespace"] = fmt.Sprintf("ns-%d", i%10)
	md["uid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	md["resourceVersion"] = fmt.Sprint(1000 + i)
	delete(md, "creationTimestamp")
	out, err := json.Marshal(obj)
	require.NoError(tb, err)
	return out
}

// BenchmarkDecode decodes one pod each way an informer can hold it, and
// with encoding/json for comparison.
func BenchmarkDecode(b *testing.B) {
	data := podJSON(b)
	run := func(name string, decode func([]byte) error) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("typed", func(d []byte) error { _, err := meta.Decode[*bench.Pod](d); return err })
	run("typed-encoding-json", func(d []byte) error { var p bench.Pod; return json.Unmarshal(d, &p) })
	run("unstructured", func(d []byte) error { _, err := meta.Decode[*meta.Unstructured](d); return err })
	run("metadata", func(d []byte) error { _, err := meta.Decode[*meta.PartialObjectMetadata](d); return err })
	run("peek", func(d []byte) error { _, err := meta.PeekMeta(d); return err })
	run("map-encoding-json", func(d []byte) error { var m map[string]any; return json.Unmarshal(d, &m) })
}

// BenchmarkIndexer measures the store: a Replace of 10,000 typed pods
// into an Indexer with its namespace index, then updates of each.
func BenchmarkIndexer(b *testing.B) {
	const n = 10000
	base := podJSON(b)
	pods := make([]*bench.Pod, n)
	for i := range pods {
		p, err := meta.Decode[*bench.Pod](variant(b, base, i))
		require.NoError(b, err)
		pods[i] = p
	}
	b.Run("replace-10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			idx := cache.NewIndexer[*bench.Pod](nil)
			if err := idx.Replace(append([]*bench.Pod(nil), pods...), "1"); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
	})
	b.Run("update", func(b *testing.B) {
		idx := cache.NewIndexer[*bench.Pod](nil)
		require.NoError(b, idx.Replace(append([]*bench.Pod(nil), pods...), "1"))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := idx.Update(pods[i%n]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// syncObjects is the size of the end-to-end data set: pods created
// through the fake API server's create path.
const syncObjects = 2000

// BenchmarkInformerSync runs an informer against the fake API server over
// loopback HTTP, from Run to the last initial notification delivered,
// once per mode: paged LIST (pages of 500) and streaming list.
func BenchmarkInformerSync(b *testing.B) {
	srv := fakeapiserver.NewForTest(b, fakeapiserver.Options{})
	client, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(b, err)
	base := podJSON(b)
	ctx := context.Background()
	for i := range syncObjects {
		pod := variant(b, base, i)
		pod = bytes.Replace(pod, []byte(`"resourceVersion":"`+fmt.Sprint(1000+i)+`",`), nil, 1)
		ns := fmt.Sprintf("ns-%d", i%10)
		if i < 10 {
			nsObj := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)
			require.NoError(b, client.Post().Resource("namespaces").Body([]byte(nsObj)).Do(ctx).Error())
		}
		require.NoError(b, client.Post().Namespace(ns).Resource("pods").Body(pod).Do(ctx).Error())
	}
	for _, mode := range []struct {
		name      string
		streaming bool
	}{{"paged", false}, {"streaming", true}} {
		b.Run("typed-"+mode.name, func(b *testing.B) { syncBench[*bench.Pod](b, client, mode.streaming) })
		b.Run("unstructured-"+mode.name, func(b *testing.B) { syncBench[*meta.Unstructured](b, client, mode.streaming) })
		b.Run("metadata-"+mode.name, func(b *testing.B) { syncBench[*meta.PartialObjectMetadata](b, client, mode.streaming) })
	}
}

// syncBench syncs one informer of T per iteration.
func syncBench[T meta.Object](b *testing.B, client *rest.Client, streaming bool) {
	b.ReportAllocs()
	for b.Loop() {
		lw, err := reflector.NewListWatch[T](client, reflector.Source{Resource: "pods"})
		require.NoError(b, err)
		opts := informer.Options[T]{Name: "pods"}
		opts.Reflector.DisableStreamingList = !streaming
		inf, err := informer.New[T](lw, opts)
		require.NoError(b, err)
		var adds atomic.Int64
		reg, err := inf.AddEventHandler(informer.HandlerFuncs[T]{AddFunc: func(T, bool) { adds.Add(1) }}, informer.HandlerOptions{})
		require.NoError(b, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = inf.Run(ctx) }()
		select {
		case <-reg.Synced():
		case <-time.After(time.Minute):
			b.Fatalf("not synced within a minute: %v", inf.SyncError())
		}
		cancel()
		<-done
		if got := adds.Load(); got != syncObjects {
			b.Fatalf("%d initial adds, want %d", got, syncObjects)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*syncObjects), "ns/object")
}

// TestVariantsAreDistinct keeps the data set honest: every variant has its
// own key and resourceVersion.
func TestVariantsAreDistinct(t *testing.T) {
	base := podJSON(t)
	seen := map[string]bool{}
	for i := range 50 {
		p, err := meta.Decode[*bench.Pod](variant(t, base, i))
		require.NoError(t, err)
		key := meta.Key(p) + "@" + p.ResourceVersion
		require.False(t, seen[key], "duplicate %s", key)
		seen[key] = true
		require.True(t, strings.HasPrefix(p.Name, "web-"))
	}
}
