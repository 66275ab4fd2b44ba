package reflector

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/clock"
)

func TestWatchRequestWithoutAnswerIsEndedAtItsDeadline(t *testing.T) {
	h := start(t, Options{DisableStreamingList: true, MinWatchTimeout: time.Minute, MaxWatchTimeout: time.Minute})
	h.nextList().answer("10", "")
	h.nextWatch() // never answered: a black-holed connection
	h.expectBackoff(time.Minute + 6*time.Second)
	h.expectBackoff(800 * time.Millisecond)
	wc := h.nextWatch()
	assert.Equal(t, "10", wc.opts.ResourceVersion, "watch again from the same resourceVersion")
	wc.open()
	e := h.onlyError(t)
	assert.ErrorIs(t, e, errNoAnswer)
	assert.Equal(t, ClassTransient, e.Class)
}

func TestStreamingListRequestWithoutAnswerFallsBack(t *testing.T) {
	h := start(t, Options{InitialEventsTimeout: time.Minute})
	h.nextWatch() // never answered
	h.expectBackoff(time.Minute)
	h.nextList().answer("3", "")
	h.nextWatch().open()
	e := h.onlyError(t)
	assert.ErrorIs(t, e, ErrInitialEventsTimeout)
}

func TestStreamingListDeadlineExtendsToTheWatch(t *testing.T) {
	h := start(t, Options{InitialEventsTimeout: time.Minute, MinWatchTimeout: 5 * time.Minute, MaxWatchTimeout: 5 * time.Minute})
	w := h.nextWatch().open()
	w.bookmark("4", true)
	// The state change comes once the stream has been handed over.
	h.waitTraces(func(h *harness) bool { return len(tracesOf[StateChanged](h)) == 1 })
	h.clock.Step(2 * time.Minute) // past InitialEventsTimeout: the watch goes on
	w.add(obj("a", "5"))
	h.store.waitContents(t, "a@5")
	h.clock.Step(4 * time.Minute) // past the watch's own deadline (5m30s)
	wc := h.nextWatch()
	assert.Equal(t, "5", wc.opts.ResourceVersion)
	assert.False(t, wc.opts.SendInitialEvents)
	assert.True(t, w.isStopped())
	wc.open()
}

func TestReflectorOverASyncedStoreDoesNotTrustAStaleFirstList(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	store := cache.NewIndexer[*Obj](nil)
	require.NoError(t, store.Replace([]*Obj{obj("a", "12")}, "13"))
	lw := newScriptLW()
	errs := make(chan *Error, 10)
	r, err := NewReflector[*Obj](lw, store, Options{DisableStreamingList: true, Clock: clk, Backoff: Backoff{Jitter: NoJitter},
		OnError: func(e *Error) { errs <- e }})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	l := recv(t, lw.lists)
	assert.Equal(t, ListOptions{ResourceVersion: "13", ResourceVersionMatch: MatchNotOlderThan, Limit: 500}, l.opts,
		"the first list continues from the store's resourceVersion")
	l.answer("10", "", obj("a", "8"), obj("b", "9")) // a lagging server
	assert.ErrorAs(t, recv(t, errs), new(*StaleError))
	got, _ := store.GetByKey("ns/a")
	assert.Equal(t, "12", got.ResourceVersion, "the stale list moved the store back")
	l = recv(t, lw.lists)
	assert.Equal(t, ListOptions{Limit: 500}, l.opts)
	l.answer("20", "", obj("a", "12"))
	recv(t, lw.watches).open()
}
