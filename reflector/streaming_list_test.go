package reflector

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// streamingRequest is what a streaming list asks for, with the harness's
// watch timeout.
func streamingRequest(rv string) ListOptions {
	return ListOptions{ResourceVersion: rv, ResourceVersionMatch: MatchNotOlderThan, SendInitialEvents: true,
		AllowWatchBookmarks: true, TimeoutSeconds: 300}
}

func TestStreamingListAccepted(t *testing.T) {
	h := start(t, Options{})
	wc := h.nextWatch()
	assert.Equal(t, streamingRequest(""), wc.opts)
	w := wc.open()
	w.add(obj("a", "3"))
	w.add(obj("b", "8"))
	w.bookmark("5", false) // an ordinary bookmark does not end the list
	h.waitTraces(func(h *harness) bool { return len(tracesOf[BookmarkReceived](h)) == 1 })
	assert.False(t, h.r.HasSynced(), "synced before the initial-events-end bookmark")
	assert.Empty(t, h.store.contents(), "store written before the initial-events-end bookmark")
	assert.Equal(t, "", h.r.LastSyncResourceVersion(), "initial events moved the resume point")

	w.bookmark("12", true)
	h.waitTraces(func(h *harness) bool { return len(tracesOf[Replaced](h)) == 1 })
	assert.Equal(t, []string{"a@3", "b@8"}, h.store.contents())
	assert.True(t, h.r.HasSynced())
	assert.Equal(t, "12", h.r.LastSyncResourceVersion())

	// The same stream goes on as the watch.
	w.modify(obj("a", "13"))
	h.store.waitContents(t, "a@13", "b@8")
	w.fail(status(410, meta.ReasonExpired))
	wc = h.nextWatch()
	assert.Equal(t, streamingRequest(""), wc.opts, "relist after a 410: a consistent streaming list")
	assert.True(t, w.isStopped())
	wc.open().bookmark("20", true)
	h.store.waitContents(t)
	assert.Empty(t, h.errors()[1:], "errors after the 410")
}

func TestStreamingListRejectedFallsBackToListThenWatch(t *testing.T) {
	h := start(t, Options{})
	h.nextWatch().fail(meta.NewStatus(422, meta.ReasonInvalid, "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"))
	l := h.nextList()
	assert.Equal(t, ListOptions{ResourceVersion: "0", Limit: 500}, l.opts)
	l.answer("10", "", obj("a", "1"))
	w := h.nextWatch().open()
	h.store.waitContents(t, "a@1")
	e := h.onlyError(t)
	assert.Equal(t, "streaming list", e.Op)
	assert.Equal(t, Listing{ResourceVersion: "0"}, stripCauses(e.Next))

	// Streaming is not tried again: a later relist is a LIST.
	w.fail(status(410, meta.ReasonExpired))
	h.nextList().answer("20", "")
	h.nextWatch().open()
}

func TestStreamingListRetriesWhatTheServerMeansAsTemporary(t *testing.T) {
	h := start(t, Options{})
	st := status(429, meta.ReasonTooManyRequests)
	st.Details = &meta.StatusDetails{RetryAfterSeconds: 2}
	h.nextWatch().fail(st)
	h.expectBackoff(2 * time.Second)
	h.nextWatch().fail(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED})
	h.expectBackoff(800 * time.Millisecond)
	wc := h.nextWatch()
	assert.True(t, wc.opts.SendInitialEvents, "still a streaming list")
	wc.open().bookmark("4", true)
	h.waitTraces(func(h *harness) bool { return h.r.HasSynced() })
}

func TestStreamingListNeverFinishedFallsBackAfterBound(t *testing.T) {
	h := start(t, Options{InitialEventsTimeout: time.Minute})
	w := h.nextWatch().open()
	w.add(obj("a", "1")) // and then nothing, forever
	h.expectBackoff(time.Minute)
	l := h.nextList()
	assert.True(t, w.isStopped(), "the unfinished stream was not stopped")
	l.answer("10", "", obj("a", "1"))
	h.nextWatch().open()
	h.store.waitContents(t, "a@1")
	e := h.onlyError(t)
	assert.ErrorIs(t, e, ErrInitialEventsTimeout)
}

func TestStreamingListEndingBeforeBookmarkRetriesThenFallsBack(t *testing.T) {
	h := start(t, Options{})
	for i, d := range []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond} {
		wc := h.nextWatch()
		require.True(t, wc.opts.SendInitialEvents, "attempt %d", i+1)
		w := wc.open()
		w.add(obj("a", "1"))
		w.end()
		h.expectBackoff(d)
	}
	w := h.nextWatch().open()
	w.end()
	h.nextList().answer("3", "")
	h.nextWatch().open()
	for _, e := range h.errors() {
		assert.ErrorIs(t, e, ErrInitialEventsIncomplete)
	}
}

func TestStreamingListWithChangeBeforeEndFallsBack(t *testing.T) {
	// A server that ignores sendInitialEvents sends changes at once.
	h := start(t, Options{})
	w := h.nextWatch().open()
	w.modify(obj("a", "4"))
	h.nextList().answer("10", "")
	h.nextWatch().open()
	e := h.onlyError(t)
	assert.ErrorIs(t, e, ErrNotStreaming)
}

func TestStreamingListStaleBookmarkIsRefused(t *testing.T) {
	h := startWith(t, Options{}, func(ctx contextT, r *Reflector[*Obj], results chan<- error) {
		for ctx.Err() == nil {
			results <- r.ListAndWatch(ctx)
		}
	})
	w := h.nextWatch().open()
	w.bookmark("20", true)
	w.add(obj("a", "21"))
	w.fail(status(500, meta.ReasonInternalError))
	require.Error(t, h.nextResult())

	// The next cycle streams from rv=20; a lagging server ends at 15.
	wc := h.nextWatch()
	assert.Equal(t, streamingRequest("21"), wc.opts)
	w = wc.open()
	w.add(obj("a", "11"))
	w.bookmark("15", true)
	var stale *StaleError
	require.ErrorAs(t, h.nextResult(), &stale)
	assert.Equal(t, []string{"a@21"}, h.store.contents())

	wc = h.nextWatch()
	assert.Equal(t, streamingRequest(""), wc.opts)
	wc.open().bookmark("30", true)
	h.store.waitContents(t)
	assert.True(t, errors.As(h.errors()[1], &stale))
}
