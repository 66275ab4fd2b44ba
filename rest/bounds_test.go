package rest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/hostile"
	"github.com/kubecache/kubecache/watch"
)

func TestDefaultTimeoutIsClientGos(t *testing.T) {
	c := newTestClient(t, &Config{Host: "https://127.0.0.1:1"})
	assert.Equal(t, 32*time.Second, c.timeout)
	assert.Equal(t, DefaultMaxListBytes, c.maxListBytes)
	assert.Equal(t, DefaultMaxListItems, c.maxListItems)
	assert.Equal(t, DefaultMaxResponseBytes, c.maxResponse)
	c = newTestClient(t, &Config{Host: "https://127.0.0.1:1", Timeout: -1})
	assert.Equal(t, time.Duration(-1), c.timeout, "a negative Timeout means none")
	_, err := NewClient(&Config{Host: "https://127.0.0.1:1", MaxListItems: -1})
	assert.ErrorContains(t, err, "MaxListItems")
}

// A server that accepts the connection and reads the request but never
// answers fails Do and List once Config.Timeout has passed, with an error
// that names the bound.
func TestSilentServerFailsRequestsAtTheTimeout(t *testing.T) {
	s, err := hostile.NewSilent()
	require.NoError(t, err)
	defer s.Close()
	const timeout = 300 * time.Millisecond
	c := newTestClient(t, &Config{Host: s.URL(), Timeout: timeout})

	start := time.Now()
	err = c.Get().Resource("configmaps").Do(t.Context()).Error()
	took := time.Since(start)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "no answer within 300ms (Config.Timeout)")
	assert.GreaterOrEqual(t, took, timeout)
	assert.Less(t, took, 10*timeout)

	start = time.Now()
	_, _, err = c.Get().Resource("configmaps").List(t.Context(), func([]byte) error { return nil })
	took = time.Since(start)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrServerSilent)
	assert.ErrorContains(t, err, "server sent nothing for 300ms (Config.Timeout)")
	assert.GreaterOrEqual(t, took, timeout)
	assert.Less(t, took, 10*timeout)
	assert.EqualValues(t, 2, s.Accepted(), "each request was sent")
}

// A list that sends its first items and then nothing fails at the
// timeout; a list that keeps arriving slowly, for longer than the
// timeout in all, is not cut.
func TestListSilenceIsBoundedButSlowListsFinish(t *testing.T) {
	const timeout = 300 * time.Millisecond
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"a"}}`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer stalled.Close()
	c := newTestClient(t, &Config{Host: stalled.URL, Timeout: timeout})
	n := 0
	start := time.Now()
	_, _, err := c.Get().Resource("configmaps").List(t.Context(), func([]byte) error { n++; return nil })
	require.ErrorIs(t, err, ErrServerSilent)
	assert.Equal(t, 1, n)
	assert.Less(t, time.Since(start), 10*timeout)

	const items = 12
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[`)
		tick := time.NewTicker(timeout / 4) // the server's pace, well inside the timeout
		defer tick.Stop()
		for i := range items {
			<-tick.C
			if i > 0 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, `{"metadata":{"name":"cm-%d"}}`, i)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "]}")
	}))
	defer slow.Close()
	c = newTestClient(t, &Config{Host: slow.URL, Timeout: timeout})
	n = 0
	start = time.Now()
	_, _, err = c.Get().Resource("configmaps").List(t.Context(), func([]byte) error { n++; return nil })
	require.NoError(t, err)
	assert.Equal(t, items, n)
	assert.Greater(t, time.Since(start), 2*timeout, "the list took longer than the timeout in all")
}

// A list that never ends is cut at MaxListItems or MaxListBytes, with
// memory bounded by what was kept, and the server sees the client leave.
func TestEndlessListIsBounded(t *testing.T) {
	var sent hostile.Counter
	srv := httptest.NewServer(hostile.EndlessList(200, &sent))
	defer srv.Close()

	c := newTestClient(t, &Config{Host: srv.URL, MaxListItems: 20_000})
	heap := hostile.StartHeapSampler()
	start := time.Now()
	_, err := ListAs[*testPod](t.Context(), c.Get().Resource("configmaps"))
	took := time.Since(start)
	_, growth := heap.Stop()
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.ErrorContains(t, err, "more than 20000 items (Config.MaxListItems)")
	assert.Less(t, growth, uint64(64<<20), "heap grew by %d bytes for 20,000 items", growth)
	t.Logf("items bound: refused after %v, heap growth %d KiB, server wrote %d items", took, growth>>10, sent.Load())

	c = newTestClient(t, &Config{Host: srv.URL, MaxListBytes: 1 << 20})
	n := 0
	_, _, err = c.Get().Resource("configmaps").List(t.Context(), func([]byte) error { n++; return nil })
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.ErrorContains(t, err, "more than 1048576 bytes (Config.MaxListBytes)")
	assert.Less(t, n, (1<<20)/200, "every item counted against the bytes")
}

// A response read whole by Do is bounded by MaxResponseBytes.
func TestDoResponseIsBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"data":"`+strings.Repeat("x", 4<<20)+`"}`)
	}))
	defer srv.Close()
	c := newTestClient(t, &Config{Host: srv.URL, MaxResponseBytes: 1 << 20})
	err := c.Get().Resource("configmaps").Name("a").Do(t.Context()).Error()
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.ErrorContains(t, err, "more than 1048576 bytes (Config.MaxResponseBytes)")
}

// frameLong runs the oversized-frame test at its full size: a 200 MB frame
// against the default 128 MiB bound (seconds without -race, a minute with
// it); the short form sends 24 MiB against a 16 MiB bound.
var frameLong = flag.Bool("frame.long", false, "send a 200 MB watch frame against the default bound")

// A frame over the bound ends the watch with ErrFrameTooLarge while the
// heap stays within twice the bound, and the buffer is given back at once.
func TestOversizedFrameMemoryIsBounded(t *testing.T) {
	size, bound, cfgBound := 24<<20, 16<<20, 16<<20
	if *frameLong {
		size, bound, cfgBound = 200<<20, watch.DefaultMaxFrameSize, 0
	}
	var sent hostile.Counter
	srv := httptest.NewServer(hostile.LargeFrame(size, &sent))
	defer srv.Close()
	c := newTestClient(t, &Config{Host: srv.URL, MaxWatchFrameBytes: cfgBound})
	runtime.GC()
	rssErr := hostile.ResetPeakRSS()
	heap := hostile.StartHeapSampler()
	w, err := c.Get().Resource("configmaps").Param("watch", "1").Watch(t.Context())
	require.NoError(t, err)
	defer w.Stop()
	ev := <-w.ResultChan()
	peak, growth := heap.Stop()
	require.Equal(t, watch.DecodeFailed, ev.Type)
	require.ErrorIs(t, ev.Err, watch.ErrFrameTooLarge)
	assert.LessOrEqual(t, growth, uint64(2*bound), "heap grew by %d MiB for a %d MiB bound", growth>>20, bound>>20)

	runtime.GC()
	kept := heapInUse()
	assert.Less(t, kept, peak-uint64(bound/2), "the grown buffer is kept after the refusal (heap %d MiB, peak %d MiB)", kept>>20, peak>>20)
	rss := "n/a"
	if rssErr == nil {
		if v, err := hostile.PeakRSS(); err == nil {
			rss = fmt.Sprintf("%d MiB", v>>20)
		}
	}
	t.Logf("frame %d MiB, bound %d MiB: read %d MiB, peak heap growth %d MiB (%.2f× the bound), peak RSS %s, heap after GC %d MiB",
		size>>20, bound>>20, sent.Load()>>20, growth>>20, float64(growth)/float64(bound), rss, kept>>20)
}

// heapInUse reads the bytes of live heap objects.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
