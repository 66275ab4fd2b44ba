package workqueue

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/internal/await"
)

// epoch is where fake clocks start in tests.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// testTimeout bounds every wait in these tests, so a bug fails a test rather
// than hanging the suite.
const testTimeout = 10 * time.Second

// newFakeQueue returns a queue on a fake clock, with the given limiter (nil
// for the default).
func newFakeQueue(t *testing.T, limiter RateLimiter[string]) (*Queue[string], *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(epoch)
	return New(Options[string]{Clock: clk, RateLimiter: limiter}), clk
}

// testContext is a context that ends with the test or after testTimeout.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// mustGet gets an item that must be ready now: it fails the test instead of
// blocking if none is.
func mustGet[K comparable](t *testing.T, q *Queue[K]) K {
	t.Helper()
	require.Positive(t, q.Len(), "mustGet: nothing ready")
	item, err := q.Get(testContext(t))
	require.NoError(t, err)
	return item
}

// getAsync starts a Get in a goroutine; the result arrives on the returned
// channel. The caller must receive from it (the test ends the Get by
// cancelling ctx or shutting the queue down).
type getResult[K comparable] struct {
	item K
	err  error
}

func getAsync[K comparable](ctx context.Context, q *Queue[K]) <-chan getResult[K] {
	ch := make(chan getResult[K], 1)
	go func() {
		item, err := q.Get(ctx)
		ch <- getResult[K]{item, err}
	}()
	return ch
}

// receive waits for a result, failing the test after testTimeout.
func receive[T any](t *testing.T, ch <-chan T) T { return await.Receive(t, ch, testTimeout) }

// parkWatcher lets a test wait until Gets are parked in a queue.
type parkWatcher[K comparable] struct {
	q      *Queue[K]
	parked chan struct{} // a token per park, buffered so onPark never blocks
}

// watchParks installs the park hook on q; call it before q is shared.
func watchParks[K comparable](q *Queue[K]) *parkWatcher[K] {
	w := &parkWatcher[K]{q: q, parked: make(chan struct{}, 1)}
	q.onPark = func() {
		select {
		case w.parked <- struct{}{}:
		default:
		}
	}
	return w
}

// wait blocks until at least n Gets are parked.
func (w *parkWatcher[K]) wait(t *testing.T, n int) {
	t.Helper()
	ctx := testContext(t)
	for {
		w.q.mu.Lock()
		have := len(w.q.waiters)
		w.q.mu.Unlock()
		if have >= n {
			return
		}
		select {
		case <-w.parked:
		case <-ctx.Done():
			require.FailNowf(t, "Gets never parked", "want %d parked, have %d", n, have)
		}
	}
}

// startWorker runs a worker on wg: it takes items from q and hands each to
// process, then marks it done, until Get fails (ctx ends or the queue is
// shut down and drained).
func startWorker[K comparable](wg *sync.WaitGroup, ctx context.Context, q *Queue[K], process func(K)) {
	wg.Go(func() {
		for {
			k, err := q.Get(ctx)
			if err != nil {
				return
			}
			process(k)
			q.Done(k)
		}
	})
}
