package informer

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
)

// obj is the smallest object type.
type obj struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

// BenchmarkProcessFanOut measures the informer's own part of an event,
// without the reflector and the queue in front of it: applying one change
// to the Indexer, appending its notification, and delivering it to 1, 10
// or 100 handlers. The clock stops when every handler has every event.
func BenchmarkProcessFanOut(b *testing.B) {
	for _, handlers := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("handlers=%d", handlers), func(b *testing.B) { benchProcess(b, handlers) })
	}
}

func benchProcess(b *testing.B, handlers int) {
	const objects = 1000
	inf := newIdleInformer(b)
	keys := make([]string, objects)
	for i := range keys {
		keys[i] = "bench/o-" + strconv.Itoa(i)
	}
	deltas := make([]cache.Deltas[*obj], b.N)
	for i := range deltas {
		o := &obj{ObjectMeta: meta.ObjectMeta{Namespace: "bench", Name: keys[i%objects][len("bench/"):], ResourceVersion: strconv.Itoa(i + 1)}}
		deltas[i] = cache.Deltas[*obj]{{Type: cache.Updated, Object: o}}
	}
	var done sync.WaitGroup
	for range handlers {
		done.Add(1)
		seen := 0
		if _, err := inf.AddEventHandler(HandlerFuncs[*obj]{
			AddFunc:    func(*obj, bool) { seen++; finished(&seen, b.N, &done) },
			UpdateFunc: func(_, _ *obj) { seen++; finished(&seen, b.N, &done) },
		}, HandlerOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	startHandlersOnly(b, inf)

	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := inf.process(keys[i%objects], deltas[i]); err != nil {
			b.Fatal(err)
		}
	}
	done.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func finished(seen *int, n int, done *sync.WaitGroup) {
	if *seen == n {
		done.Done()
	}
}
