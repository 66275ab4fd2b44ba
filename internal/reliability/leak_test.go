package reliability_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// heapInUse returns the live heap after two collections.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestThousandInformersLeaveNothingBehind starts and stops 1,000 informers
// (100 in the short form; each with a handler, all synced against one fake
// server through one client) and checks that the goroutines return to their
// baseline — every reflector, queue, handler and watch reader ended, every
// idle HTTP connection closed — and that the heap returns to within 10% of
// it. The baseline is taken after a first round of as many informers, so
// that what is sized once for that many (the server's maps of connections
// and watchers, which Go never shrinks; the transport's pools) is in it and
// what the comparison sees is what a round leaves behind.
func TestThousandInformersLeaveNothingBehind(t *testing.T) {
	// Two rounds of 1,000 take about a minute on 2 idle cores with -race;
	// the long bound leaves room for a machine shared with other work.
	n, bound := 100, 2*time.Minute
	if *long {
		n, bound = 1000, 10*time.Minute
	}
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{CompactionInterval: -1})
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for i := range 20 {
		require.NoError(t, configMaps.on(c.Post(), "").Body(object(configMaps, "ConfigMap", fmt.Sprintf("cm-%d", i), "v")).Do(ctx).Error())
	}
	c.CloseIdleConnections()

	// Warm up what is sized once, then take the baseline.
	runInformers(t, ctx, c, n)
	c.CloseIdleConnections()
	baseline := goleak.IgnoreCurrent()
	goroutines := runtime.NumGoroutine()
	heap := heapInUse()

	start := time.Now()
	runInformers(t, ctx, c, n)
	ran := time.Since(start)
	c.CloseIdleConnections()

	require.NoError(t, goleak.Find(baseline), "goroutines left after %d informers stopped", n)
	after := runtime.NumGoroutine()
	heapAfter := heapInUse()
	t.Logf("%d informers started, synced and stopped in %v; goroutines %d -> %d; heap %d KiB -> %d KiB (%+.1f%%)",
		n, ran.Round(time.Millisecond), goroutines, after, heap>>10, heapAfter>>10, 100*(float64(heapAfter)-float64(heap))/float64(heap))
	assert.LessOrEqual(t, after, goroutines)
	assert.LessOrEqual(t, float64(heapAfter), 1.10*float64(heap), "the heap did not return to within 10%% of its baseline")
	assert.Zero(t, srv.Watchers(""), "watches left open on the server")
}

// runInformers runs n informers of ConfigMaps until all have synced and
// their handlers have seen every object, then stops them and waits.
func runInformers(t *testing.T, ctx context.Context, c *rest.Client, n int) {
	t.Helper()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	infs := make([]*informer.Informer[*meta.PartialObjectMetadata], n)
	seen := make(chan struct{}, n)
	for i := range infs {
		lw, err := reflector.NewListWatch[*meta.PartialObjectMetadata](c, reflector.Source{Resource: "configmaps", Namespace: "default"})
		require.NoError(t, err)
		inf, err := informer.New[*meta.PartialObjectMetadata](lw, informer.Options[*meta.PartialObjectMetadata]{
			Name: fmt.Sprintf("leak-%d", i), Reflector: reflector.Options{Backoff: harnessBackoff},
		})
		require.NoError(t, err)
		var once sync.Once
		count := 0
		_, err = inf.AddEventHandler(informer.HandlerFuncs[*meta.PartialObjectMetadata]{AddFunc: func(*meta.PartialObjectMetadata, bool) {
			if count++; count == 20 {
				once.Do(func() { seen <- struct{}{} })
			}
		}}, informer.HandlerOptions{})
		require.NoError(t, err)
		infs[i] = inf
		wg.Go(func() { _ = inf.Run(runCtx) })
	}
	for range n {
		select {
		case <-seen:
		case <-ctx.Done():
			stop()
			wg.Wait()
			t.Fatalf("informers did not sync: %v", ctx.Err())
		}
	}
	stop()
	wg.Wait()
}
