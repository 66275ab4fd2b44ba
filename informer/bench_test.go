package informer_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/watch"
)

// preparedWatch is a watch whose events are all queued before it opens,
// so that a benchmark measures the informer, not its source.
type preparedWatch struct {
	ch   chan watch.Event[*ConfigMap]
	once sync.Once
}

func (w *preparedWatch) ResultChan() <-chan watch.Event[*ConfigMap] { return w.ch }
func (w *preparedWatch) Stop()                                      { w.once.Do(func() { close(w.ch) }) }

// BenchmarkFanOut measures events per second from the reflector to every
// handler: b.N MODIFIED events for 1,000 objects, already decoded, each
// delivered to 1, 10 or 100 handlers that count them. The clock stops when
// the last handler has seen the last event.
func BenchmarkFanOut(b *testing.B) {
	for _, handlers := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("handlers=%d", handlers), func(b *testing.B) { benchFanOut(b, handlers) })
	}
}

func benchFanOut(b *testing.B, handlers int) {
	const objects = 1000
	initial := make([]*ConfigMap, objects)
	for i := range initial {
		initial[i] = &ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "bench", Name: "cm-" + strconv.Itoa(i), ResourceVersion: "1"}}
	}
	w := &preparedWatch{ch: make(chan watch.Event[*ConfigMap], b.N)}
	for i := range b.N {
		w.ch <- watch.Event[*ConfigMap]{Type: watch.Modified, Object: &ConfigMap{ObjectMeta: meta.ObjectMeta{
			Namespace: "bench", Name: initial[i%objects].Name, ResourceVersion: strconv.Itoa(i + 2),
		}}}
	}
	start := make(chan struct{})
	lw := &reflector.ListWatch[*ConfigMap]{
		ListFunc: func(_ context.Context, _ reflector.ListOptions, _ reflector.Known[*ConfigMap], emit func(*ConfigMap) error) (meta.ListMeta, error) {
			for _, o := range initial {
				if err := emit(o); err != nil {
					return meta.ListMeta{}, err
				}
			}
			return meta.ListMeta{ResourceVersion: "1"}, nil
		},
		WatchFunc: func(ctx context.Context, _ reflector.ListOptions, _ reflector.Known[*ConfigMap]) (watch.Interface[*ConfigMap], error) {
			select {
			case <-start:
				return w, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
	inf, err := informer.New(lw, informer.Options[*ConfigMap]{Reflector: reflector.Options{DisableStreamingList: true}})
	if err != nil {
		b.Fatal(err)
	}
	var done sync.WaitGroup
	regs := make([]informer.Syncer, handlers)
	for h := range handlers {
		done.Add(1)
		seen := 0
		reg, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{UpdateFunc: func(_, _ *ConfigMap) {
			if seen++; seen == b.N {
				done.Done()
			}
		}}, informer.HandlerOptions{})
		if err != nil {
			b.Fatal(err)
		}
		regs[h] = reg
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = inf.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()
	if err := informer.WaitForCacheSync(ctx, regs...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	close(start)
	done.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.N*handlers)/b.Elapsed().Seconds(), "deliveries/s")
}
