package reflector

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// listWatchOpts disables streaming lists: the paginated path.
var listWatchOpts = Options{DisableStreamingList: true}

// syncByList drives a reflector without streaming through its first list
// (one page, items at rv) and opens the watch that follows.
func syncByList(t *testing.T, h *harness, rv string, items ...*Obj) *fakeWatch {
	t.Helper()
	l := h.nextList()
	require.Equal(t, ListOptions{ResourceVersion: "0", Limit: 500}, l.opts, "first LIST")
	l.answer(rv, "", items...)
	wc := h.nextWatch()
	require.Equal(t, rv, wc.opts.ResourceVersion, "WATCH after the list")
	return wc.open()
}

func TestListThenWatchAppliesEvents(t *testing.T) {
	h := start(t, listWatchOpts)
	w := syncByList(t, h, "10", obj("a", "5"), obj("b", "7"))
	h.waitTraces(func(h *harness) bool { return h.r.HasSynced() })
	assert.Equal(t, []string{"a@5", "b@7"}, h.store.contents())

	w.add(obj("c", "11"))
	w.modify(obj("a", "12"))
	w.del(obj("b", "13"))
	h.store.waitContents(t, "a@12", "c@11")
	w.bookmark("20", false)
	h.waitTraces(func(h *harness) bool { return h.r.LastSyncResourceVersion() == "20" })
	assert.Empty(t, h.errors())
}

func TestWatchRequestOptions(t *testing.T) {
	h := start(t, Options{DisableStreamingList: true, MinWatchTimeout: 5 * time.Minute})
	l := h.nextList()
	l.answer("10", "")
	wc := h.nextWatch()
	assert.Equal(t, ListOptions{ResourceVersion: "10", AllowWatchBookmarks: true, TimeoutSeconds: 300}, wc.opts)
	wc.open()
}

func TestWatchEndingNormallyRewatchesFromLastRVWithoutRelist(t *testing.T) {
	h := start(t, listWatchOpts)
	w := syncByList(t, h, "10")
	w.add(obj("a", "11"))
	w.bookmark("15", false)
	w.end()
	wc := h.nextWatch() // a LIST here fails the test
	assert.Equal(t, "15", wc.opts.ResourceVersion)
	wc.open()
	h.store.waitContents(t, "a@11")
}

func TestPaginatedListPinsFirstPageAndReplacesOnce(t *testing.T) {
	h := start(t, Options{DisableStreamingList: true, PageSize: 2})
	l := h.nextList()
	assert.Equal(t, ListOptions{ResourceVersion: "0", Limit: 2}, l.opts)
	l.answer("30", "tok1", obj("a", "1"), obj("b", "2"))
	l = h.nextList()
	assert.Equal(t, ListOptions{Limit: 2, Continue: "tok1"}, l.opts, "a continue page carries no resourceVersion")
	l.answer("30", "tok2", obj("c", "3"), obj("d", "4"))
	l = h.nextList()
	assert.Equal(t, ListOptions{Limit: 2, Continue: "tok2"}, l.opts)
	h.mu.Lock()
	replacedBefore := h.store.replaced
	h.mu.Unlock()
	assert.Zero(t, replacedBefore, "store replaced before the last page")
	l.answer("30", "", obj("e", "5"))
	h.nextWatch().open()
	h.store.waitContents(t, "a@1", "b@2", "c@3", "d@4", "e@5")
	pages := tracesOf[ListPageReceived](h)
	require.Len(t, pages, 3)
	assert.Equal(t, []int{2, 2, 1}, []int{pages[0].Items, pages[1].Items, pages[2].Items})
	rep := tracesOf[Replaced](h)
	require.Len(t, rep, 1)
	assert.Equal(t, Replaced{Objects: 5, ResourceVersion: "30"}, rep[0])
}

func TestServerIgnoringLimitSendsOnePage(t *testing.T) {
	h := start(t, Options{DisableStreamingList: true, PageSize: 2})
	items := make([]*Obj, 7)
	want := make([]string, 7)
	for i := range items {
		items[i] = obj(fmt.Sprintf("o%d", i), "3")
		want[i] = fmt.Sprintf("o%d@3", i)
	}
	h.nextList().answer("9", "", items...)
	h.nextWatch().open()
	h.store.waitContents(t, want...)
}

func TestExpiredContinueTokenFallsBackToFullList(t *testing.T) {
	h := start(t, Options{DisableStreamingList: true, PageSize: 2})
	h.nextList().answer("30", "tok1", obj("a", "1"), obj("b", "2"))
	h.nextList().fail(status(410, meta.ReasonExpired))
	l := h.nextList()
	assert.Equal(t, ListOptions{ResourceVersion: "0"}, l.opts, "full list: same resourceVersion, no limit, no continue")
	l.answer("40", "", obj("a", "1"), obj("c", "35"))
	h.nextWatch().open()
	h.store.waitContents(t, "a@1", "c@35")
	require.Len(t, tracesOf[ListRestarted](h), 1)
}

func TestWatch410RelistsAtConsistentRV(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(wc watchCall)
	}{
		{"ERROR event Expired", func(wc watchCall) { wc.open().fail(status(410, meta.ReasonExpired)) }},
		{"ERROR event Gone", func(wc watchCall) { wc.open().fail(status(410, meta.ReasonGone)) }},
		{"immediate 410", func(wc watchCall) { wc.fail(status(410, meta.ReasonExpired)) }},
		{"too large resourceVersion", func(wc watchCall) {
			st := status(504, meta.ReasonTimeout)
			st.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge}}}
			wc.fail(st)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, listWatchOpts)
			w := syncByList(t, h, "10", obj("a", "5"))
			w.add(obj("b", "11"))
			h.store.waitContents(t, "a@5", "b@11")
			w.end()
			tc.fail(h.nextWatch())
			l := h.nextList()
			assert.Equal(t, ListOptions{Limit: 500}, l.opts, "relist after a 410 must be a consistent read")
			l.answer("50", "", obj("b", "40"))
			wc := h.nextWatch()
			assert.Equal(t, "50", wc.opts.ResourceVersion)
			wc.open()
			h.store.waitContents(t, "b@40")
			errs := h.errors()
			require.NotEmpty(t, errs)
			assert.Equal(t, ClassExpired, errs[0].Class)
			assert.Equal(t, "watch", errs[0].Op)
		})
	}
}

func TestRelistAfterExpiryIsNotOlderThanLastSync(t *testing.T) {
	// A relist for a reason that leaves the resourceVersion usable (here:
	// three watches in a row closing at once, which marks it unusable, so
	// first check the normal relist path through a 404).
	h := start(t, Options{DisableStreamingList: true, Backoff: Backoff{Initial: time.Second, Max: 30 * time.Second}})
	w := syncByList(t, h, "10")
	w.bookmark("12", false)
	w.end()
	h.nextWatch().fail(status(404, meta.ReasonNotFound))
	h.expectBackoff(time.Second)
	l := h.nextList()
	assert.Equal(t, ListOptions{Limit: 500}, l.opts, "a 404 during a watch relists consistently")
	l.answer("20", "")
	h.nextWatch().open()
}

func TestTooManyRequestsWaitsRetryAfterThenRewatches(t *testing.T) {
	h := start(t, listWatchOpts)
	w := syncByList(t, h, "10")
	w.add(obj("a", "11"))
	w.end()
	st := status(429, meta.ReasonTooManyRequests)
	st.Details = &meta.StatusDetails{RetryAfterSeconds: 7}
	h.nextWatch().fail(st)
	h.expectBackoff(7 * time.Second)
	wc := h.nextWatch()
	assert.Equal(t, "11", wc.opts.ResourceVersion, "rewatch from the same resourceVersion")
	wc.open()
	e := h.onlyError(t)
	assert.Equal(t, ClassThrottled, e.Class)
	assert.Equal(t, BackingOff{Delay: 7 * time.Second, Then: Watching{ResourceVersion: "11"}, Cause: st}, e.Next)
}

func TestServerErrorsBackOffExponentiallyThenReset(t *testing.T) {
	h := start(t, Options{DisableStreamingList: true, Backoff: Backoff{Initial: time.Second, Max: 4 * time.Second, ResetAfter: time.Minute}})
	w := syncByList(t, h, "10")
	w.add(obj("a", "11"))
	w.end()
	for _, d := range []time.Duration{1, 2, 4, 4} {
		h.nextWatch().fail(status(503, meta.ReasonServiceUnavailable))
		h.expectBackoff(d * time.Second)
	}
	// A quiet minute resets the backoff.
	w = h.nextWatch().open()
	h.waitWatching()
	h.clock.Step(2 * time.Minute)
	w.end()
	h.nextWatch().fail(errors.Join(errors.New("dial"), syscall.ECONNREFUSED))
	h.expectBackoff(time.Second)
	wc := h.nextWatch()
	assert.Equal(t, "11", wc.opts.ResourceVersion)
	wc.open()
	assert.False(t, h.store.replaced > 1, "a 5xx or a refused connection must not relist")
}

func TestWatchClosingAtOnceCountsAsFailureAndThirdRelists(t *testing.T) {
	h := start(t, listWatchOpts)
	syncByList(t, h, "10").end() // no event, no time: short
	h.expectBackoff(800 * time.Millisecond)
	h.nextWatch().open().end()
	h.expectBackoff(1600 * time.Millisecond)
	h.nextWatch().open().end()
	h.expectBackoff(3200 * time.Millisecond)
	l := h.nextList()
	assert.Equal(t, ListOptions{Limit: 500}, l.opts)
	l.answer("11", "")
	h.nextWatch().open()
	var closedEarly int
	for _, e := range h.errors() {
		if errors.Is(e, ErrWatchClosedEarly) {
			closedEarly++
		}
	}
	assert.Equal(t, 3, closedEarly)
}

func TestWatchOutlivingItsTimeoutIsEndedByTheReflector(t *testing.T) {
	h := start(t, Options{DisableStreamingList: true, MinWatchTimeout: time.Minute, MaxWatchTimeout: time.Minute})
	w := syncByList(t, h, "10")
	w.waitRead(t)
	h.expectBackoff(time.Minute + 6*time.Second)
	wc := h.nextWatch()
	assert.Equal(t, "10", wc.opts.ResourceVersion)
	assert.True(t, w.isStopped(), "the stalled watch was not stopped")
	wc.open()
}

func TestListAndWatchReturnsFirstErrorAndStaleRelistIsRefused(t *testing.T) {
	h := startWith(t, listWatchOpts, func(ctx context.Context, r *Reflector[*Obj], errs chan<- error) {
		for ctx.Err() == nil {
			errs <- r.ListAndWatch(ctx)
		}
	})
	w := syncByList(t, h, "10", obj("a", "5"))
	w.modify(obj("a", "20"))
	h.store.waitContents(t, "a@20")
	w.fail(status(503, meta.ReasonServiceUnavailable))
	err := h.nextResult()
	var rerr *Error
	require.ErrorAs(t, err, &rerr)
	assert.Equal(t, ClassTransient, rerr.Class)
	assert.Equal(t, "watch", rerr.Op)
	assert.Equal(t, BackingOff{Delay: 800 * time.Millisecond, Then: Watching{ResourceVersion: "20"}, Cause: rerr.Err}, rerr.Next)

	// The next cycle relists at the last synced rv, not older than it; a
	// lagging server answers with an older snapshot, which is refused.
	l := h.nextList()
	assert.Equal(t, ListOptions{ResourceVersion: "20", ResourceVersionMatch: MatchNotOlderThan, Limit: 500}, l.opts)
	l.answer("15", "", obj("a", "5"))
	err = h.nextResult()
	var stale *StaleError
	require.ErrorAs(t, err, &stale)
	assert.Equal(t, StaleError{ResourceVersion: "15", LastSynced: "20"}, *stale)
	h.store.waitContents(t, "a@20")

	l = h.nextList()
	assert.Equal(t, ListOptions{Limit: 500}, l.opts, "after a stale list: a consistent read")
	l.answer("30", "", obj("a", "20"), obj("b", "29"))
	h.nextWatch().open()
	h.store.waitContents(t, "a@20", "b@29")
	assert.Len(t, tracesOf[StaleDiscarded](h), 1)
}
