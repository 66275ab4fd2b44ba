package workqueue

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kubecache/kubecache/clock"
)

// BenchmarkThroughput measures Add+Get+Done of distinct keys: one producer
// adds b.N keys while the workers drain them. Reported as items/s.
func BenchmarkThroughput(b *testing.B) {
	for _, workers := range []int{1, 2, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			q := New(Options[int]{})
			ctx := context.Background()
			var wg sync.WaitGroup
			b.ResetTimer()
			for range workers {
				startWorker(&wg, ctx, q, func(int) {})
			}
			for i := range b.N {
				q.Add(i)
			}
			q.ShutDown() // workers drain what is ready, then stop
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// BenchmarkAddDuplicate measures Add of a key that is already waiting: the
// cost an informer pays for an update that de-duplication absorbs.
func BenchmarkAddDuplicate(b *testing.B) {
	q := New(Options[string]{})
	q.Add("default/web")
	for b.Loop() {
		q.Add("default/web")
	}
}

// BenchmarkAddAfter measures scheduling delayed keys into the heap (1,000
// distinct keys, due times spread over a minute).
func BenchmarkAddAfter(b *testing.B) {
	clk := clock.NewFake(epoch)
	q := New(Options[int]{Clock: clk})
	i := 0
	for b.Loop() {
		q.AddAfter(i%1000, time.Duration(i*7919%60000)*time.Millisecond)
		i++
	}
}

// BenchmarkAddRateLimited measures the retry path with the default limiter.
func BenchmarkAddRateLimited(b *testing.B) {
	clk := clock.NewFake(epoch)
	q := New(Options[int]{Clock: clk})
	i := 0
	for b.Loop() {
		q.AddRateLimited(i % 1000)
		i++
	}
}
