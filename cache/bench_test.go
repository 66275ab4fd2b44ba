package cache_test

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/selector"
)

// benchN is the number of objects the benchmarks hold.
const benchN = 100_000

// benchPods returns a fixed data set of benchN pods: 100 namespaces of
// 1,000 pods, 500 nodes, 7 values of the "app" label. It is built once.
var benchPods = sync.OnceValue(func() []*Pod { return makeBenchPods("1") })

// benchPodsV2 holds the same keys as benchPods, at a later resourceVersion
// and on other nodes.
var benchPodsV2 = sync.OnceValue(func() []*Pod { return makeBenchPods("2") })

func makeBenchPods(rv string) []*Pod {
	out := make([]*Pod, benchN)
	for i := range out {
		p := newPod("namespace-"+strconv.Itoa(i%100), "pod-"+strconv.Itoa(i)+"-7c5ddbdf54-abcde", rv,
			"app", "app-"+strconv.Itoa(i%7), "pod-template-hash", "7c5ddbdf54")
		p.Spec.NodeName = "node-" + strconv.Itoa((i+int(rv[0]-'0'))%500)
		out[i] = p
	}
	return out
}

// alternate returns the i-th update of a loop that replaces every pod of
// v1 by its v2 state, then every v2 state by v1 again, and so on.
func alternate(v1, v2 []*Pod, i int) *Pod {
	if (i/benchN)%2 == 1 {
		return v1[i%benchN]
	}
	return v2[i%benchN]
}

// newBenchIndexer returns an Indexer holding pods, with a node index.
func newBenchIndexer(b *testing.B, pods []*Pod) *cache.Indexer[*Pod] {
	b.Helper()
	x := nodeIndexer(b)
	if err := x.Replace(pods, "1"); err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkIndexerAdd fills an Indexer (namespace and node indexes) with
// 100,000 new objects, again and again; one op is one Add.
func BenchmarkIndexerAdd(b *testing.B) {
	pods := benchPods()
	var x *cache.Indexer[*Pod]
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%benchN == 0 {
			b.StopTimer()
			x = nodeIndexer(b)
			b.StartTimer()
		}
		if err := x.Add(pods[i%benchN]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexerUpdate replaces objects of a 100,000-object Indexer with
// newer states that move them to another node.
func BenchmarkIndexerUpdate(b *testing.B) {
	v1, v2 := benchPods(), benchPodsV2()
	x := newBenchIndexer(b, v1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := alternate(v1, v2, i)
		if err := x.Update(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexerGetByKey reads objects of a 100,000-object Indexer by
// key, in a scattered order.
func BenchmarkIndexerGetByKey(b *testing.B) {
	pods := benchPods()
	x := newBenchIndexer(b, pods)
	keys := make([]string, benchN)
	for i, p := range pods {
		keys[i] = metaKey(p)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, ok := x.GetByKey(keys[(i*7919)%benchN]); !ok {
			b.Fatal("missing")
		}
	}
}

// BenchmarkIndexerByIndex asks a 100,000-object Indexer for the 1,000
// objects of one namespace, and for the 200 objects of one node.
func BenchmarkIndexerByIndex(b *testing.B) {
	x := newBenchIndexer(b, benchPods())
	b.Run("namespace=1000", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			objs, err := x.ByIndex(cache.NamespaceIndex, "namespace-"+strconv.Itoa(i%100))
			if err != nil || len(objs) != 1000 {
				b.Fatal(len(objs), err)
			}
		}
	})
	b.Run("node=200", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			objs, err := x.ByIndex("node", "node-"+strconv.Itoa(1+i%499))
			if err != nil || len(objs) != 200 {
				b.Fatal(len(objs), err)
			}
		}
	})
}

// BenchmarkListerList lists by label selector from a 100,000-object
// Indexer: across all namespaces (14,286 matches) and in one namespace
// (143 matches).
func BenchmarkListerList(b *testing.B) {
	pods := benchPods()
	l := cache.NewLister(newBenchIndexer(b, pods))
	sel, err := selector.ParseLabels("app=app-3,pod-template-hash")
	if err != nil {
		b.Fatal(err)
	}
	all, inNS := 0, 0
	for _, p := range pods {
		if sel.Matches(p.Labels) {
			all++
			if p.Namespace == "namespace-3" {
				inNS++
			}
		}
	}
	b.Run("all-namespaces", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if n := len(l.List(sel)); n != all {
				b.Fatal(n, all)
			}
		}
	})
	b.Run("one-namespace", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if n := len(l.Namespace("namespace-3").List(sel)); n != inNS {
				b.Fatal(n, inNS)
			}
		}
	})
}

// BenchmarkIndexerReplace replaces the whole contents of a 100,000-object
// Indexer; one op is one Replace of 100,000 objects.
func BenchmarkIndexerReplace(b *testing.B) {
	v1, v2 := benchPods(), benchPodsV2()
	x := newBenchIndexer(b, v1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		items := v2
		if i%2 == 1 {
			items = v1
		}
		if err := x.Replace(items, "2"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexerRelistUnchanged is a Reflector's relist of a
// 100,000-object Indexer when nothing changed: every listed object is found
// with Replacement.Lookup and reused, then Commit swaps the contents. One
// op is the whole relist.
func BenchmarkIndexerRelistUnchanged(b *testing.B) {
	pods := benchPods()
	x := newBenchIndexer(b, pods)
	b.ReportAllocs()
	for b.Loop() {
		rep := x.BeginReplace()
		for _, p := range pods {
			cur, ok := rep.Lookup(p.Namespace, p.Name)
			if !ok || cur.ResourceVersion != p.ResourceVersion {
				b.Fatal("not found")
			}
			if err := rep.Add(cur); err != nil {
				b.Fatal(err)
			}
		}
		if err := rep.Commit("1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemoryPerEntry measures what an Indexer with the namespace and
// node indexes costs per object beyond the objects themselves: its maps,
// its keys, its index entries. The objects exist before the measurement.
func BenchmarkMemoryPerEntry(b *testing.B) {
	pods := benchPods()
	var perEntry float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := nodeIndexer(b)
		for _, p := range pods {
			if err := x.Add(p); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perEntry = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / benchN
		runtime.KeepAlive(x)
	}
	b.ReportMetric(perEntry, "bytes/entry")
}

// BenchmarkReaderLatencyDuringReplace reads by key from a 100,000-object
// Indexer, first alone ("idle"), then while another goroutine replaces its
// whole contents over and over, 100,000 objects each time
// ("during-replace"), and reports the readers' latency percentiles. The
// lock readers share is held by a Replace only for the swap, never while
// it builds the new contents.
func BenchmarkReaderLatencyDuringReplace(b *testing.B) {
	v1, v2 := benchPods(), benchPodsV2()
	x := newBenchIndexer(b, v1)
	keys := make([]string, benchN)
	for i, p := range v1 {
		keys[i] = metaKey(p)
	}
	read := func(b *testing.B) {
		lat := make([]time.Duration, 0, 1<<20)
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			_, ok := x.GetByKey(keys[(i*7919)%benchN])
			d := time.Since(start)
			if !ok {
				b.Fatal("missing")
			}
			if len(lat) < cap(lat) {
				lat = append(lat, d)
			}
		}
		slices.Sort(lat)
		pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Nanoseconds()) }
		b.ReportMetric(pct(0.50), "p50-ns")
		b.ReportMetric(pct(0.99), "p99-ns")
		b.ReportMetric(pct(0.999), "p99.9-ns")
		b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds()), "max-ns")
	}

	b.Run("idle", read)
	b.Run("during-replace", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		replaces := 0
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				items := v2
				if i%2 == 1 {
					items = v1
				}
				if err := x.Replace(items, strconv.Itoa(i)); err != nil {
					panic(err)
				}
				replaces++
			}
		}()
		read(b)
		cancel()
		wg.Wait()
		b.ReportMetric(float64(replaces), "replaces")
	})
}

// BenchmarkDeltaFIFO queues an update and pops it, as an informer does for
// each watch event, with 100,000 objects behind the queue.
func BenchmarkDeltaFIFO(b *testing.B) {
	benchQueue(b, func(opts cache.QueueOptions[*Pod]) cache.Queue[*Pod] { return cache.NewDeltaFIFO(opts) })
}

// benchQueue queues an update and pops it, b.N times, on the queue made by
// newQueue over an indexer of benchN pods.
func benchQueue(b *testing.B, newQueue func(cache.QueueOptions[*Pod]) cache.Queue[*Pod]) {
	pods := benchPods()
	known := newBenchIndexer(b, pods)
	q := newQueue(cache.QueueOptions[*Pod]{KnownObjects: known})
	defer q.Close()
	ctx := context.Background()
	process := func(string, cache.Deltas[*Pod]) error { return nil }
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := q.Update(pods[i%benchN]); err != nil {
			b.Fatal(err)
		}
		if err := q.Pop(ctx, process); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexerPut is BenchmarkIndexerUpdate through Put, with the keys
// computed beforehand, as an informer holds them: it measures what an
// informer saves by not computing the key again and not reading the old
// object under a separate lock.
func BenchmarkIndexerPut(b *testing.B) {
	v1, v2 := benchPods(), benchPodsV2()
	keys := make([]string, benchN)
	for i, p := range v1 {
		keys[i] = cache.MetaNamespaceKey(p.Namespace, p.Name)
	}
	x := newBenchIndexer(b, v1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := alternate(v1, v2, i)
		if _, _, err := x.Put(keys[i%benchN], p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFIFO is BenchmarkDeltaFIFO for the in-order FIFO, the
// informer's default queue.
func BenchmarkFIFO(b *testing.B) {
	benchQueue(b, func(opts cache.QueueOptions[*Pod]) cache.Queue[*Pod] { return cache.NewFIFO(opts) })
}
