package reflector

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/internal/hostile"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// firstListError runs a reflector over HTTP against url until its first
// error, and returns it with the time it took.
func firstListError(t *testing.T, url string, opts Options) (*Error, time.Duration) {
	t.Helper()
	c, err := rest.NewClient(&rest.Config{Host: url, QPS: -1})
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	lw := NewListWatchFromClient[*meta.Unstructured](c, "configmaps", "", selector.Fields{})
	ctx, cancel := context.WithTimeout(t.Context(), loopbackTimeout)
	defer cancel()
	var first *Error
	opts.DisableStreamingList = true
	opts.OnError = func(e *Error) {
		if first == nil {
			first = e
		}
		cancel()
	}
	r, err := NewReflector[*meta.Unstructured](lw, cache.NewIndexer[*meta.Unstructured](nil), opts)
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, r.Run(ctx))
	require.NotNil(t, first, "the reflector met no error")
	return first, time.Since(start)
}

// Continue tokens that go round a cycle of any period are refused when
// the cycle first comes round, after period+1 pages.
func TestContinueTokenCyclesOfAnyPeriodAreRefused(t *testing.T) {
	for _, period := range []int{1, 2, 3, 7, 100} {
		var pages hostile.Counter
		srv := httptest.NewServer(hostile.ContinueCycle(period, &pages))
		e, _ := firstListError(t, srv.URL, Options{PageSize: 1})
		srv.Close()
		require.ErrorIs(t, e, ErrContinueLoop, "period %d", period)
		assert.Equal(t, ClassProtocol, e.Class)
		assert.EqualValues(t, period+1, pages.Load(), "period %d: pages served", period)
	}
}

// Continue tokens that never repeat are cut at MaxListPages.
func TestPagesOfAListAreBounded(t *testing.T) {
	var pages hostile.Counter
	srv := httptest.NewServer(hostile.ContinueCycle(1<<30, &pages))
	defer srv.Close()
	e, _ := firstListError(t, srv.URL, Options{PageSize: 1, MaxListPages: 50})
	require.ErrorIs(t, e, ErrListTooLarge)
	assert.ErrorContains(t, e, "more than 50 pages (Options.MaxListPages)")
	assert.Equal(t, ClassNeedsHuman, e.Class)
	assert.EqualValues(t, 50, pages.Load())
}

// A list whose one page never ends is cut at MaxListItems, with the heap
// bounded by the objects kept.
func TestEndlessListIsCutAtMaxListItems(t *testing.T) {
	var items hostile.Counter
	srv := httptest.NewServer(hostile.EndlessList(200, &items))
	defer srv.Close()
	heap := hostile.StartHeapSampler()
	e, took := firstListError(t, srv.URL, Options{MaxListItems: 20_000})
	_, growth := heap.Stop()
	require.ErrorIs(t, e, ErrListTooLarge)
	assert.ErrorContains(t, e, "more than 20000 objects (Options.MaxListItems)")
	assert.Less(t, growth, uint64(128<<20), "heap grew by %d bytes", growth)
	t.Logf("refused after %v; heap growth %d KiB; the server wrote %d items", took, growth>>10, items.Load())
}

// A watch event whose resourceVersion is not an integer, from a server
// whose versions are, is not applied: the watch ends with
// ErrInvalidResourceVersion and resumes from the last good version, so
// an older event after it is still recognised as older.
func TestNonNumericResourceVersionIsRefused(t *testing.T) {
	h := start(t, listWatchOpts)
	w := syncByList(t, h, "10", obj("a", "10"))
	w.modify(obj("a", "12"))
	w.modify(obj("a", "zzz"))
	h.expectBackoff(800 * time.Millisecond)
	e := h.onlyError(t)
	require.ErrorIs(t, e, ErrInvalidResourceVersion)
	assert.ErrorContains(t, e, `MODIFIED ns/a has resourceVersion "zzz" (last 12)`)
	assert.Equal(t, ClassProtocol, e.Class)
	wc := h.nextWatch()
	assert.Equal(t, "12", wc.opts.ResourceVersion, "resumed from the last good version")
	w = wc.open()
	w.modify(obj("a", "5"))
	w.modify(obj("a", "13"))
	h.store.waitContents(t, "a@13")
}

// A Retry-After of days is honoured only up to maxRetryAfter (32 s).
func TestRetryAfterIsCapped(t *testing.T) {
	h := start(t, listWatchOpts)
	w := syncByList(t, h, "10")
	w.add(obj("a", "11"))
	w.end()
	st := status(429, meta.ReasonTooManyRequests)
	st.Details = &meta.StatusDetails{RetryAfterSeconds: 999999}
	h.nextWatch().fail(st)
	h.expectBackoff(32 * time.Second)
	assert.Equal(t, 32*time.Second, maxRetryAfter)

	// Over HTTP, with the header.
	var hits hostile.Counter
	srv := httptest.NewServer(hostile.TooManyRequests("999999", &hits))
	defer srv.Close()
	e, _ := firstListError(t, srv.URL, Options{})
	assert.Equal(t, ClassThrottled, e.Class)
	assert.Equal(t, 32*time.Second, e.Next.(BackingOff).Delay)
}
