package reflector

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/meta"
)

func TestWatchEventOlderThanStoreIsSkipped(t *testing.T) {
	h := start(t, listWatchOpts)
	w := syncByList(t, h, "10", obj("a", "9"))
	w.modify(obj("a", "12"))
	w.modify(obj("a", "11")) // out of order: would move a back
	w.del(obj("a", "8"))     // a stale delete
	w.add(obj("b", "13"))
	h.store.waitContents(t, "a@12", "b@13")
	skipped := tracesOf[EventSkipped](h)
	require.Len(t, skipped, 2)
	assert.Equal(t, EventSkipped{Type: "MODIFIED", Key: "ns/a", ResourceVersion: "11", Stored: "12"}, skipped[0])
	h.waitTraces(func(h *harness) bool { return h.r.LastSyncResourceVersion() == "13" })
}

func TestListItemOlderThanStoreKeepsStored(t *testing.T) {
	h := startWith(t, listWatchOpts, func(ctx contextT, r *Reflector[*Obj], results chan<- error) {
		for ctx.Err() == nil {
			results <- r.ListAndWatch(ctx)
		}
	})
	w := syncByList(t, h, "10", obj("a", "9"))
	w.modify(obj("a", "15"))
	w.fail(status(410, meta.ReasonExpired))
	require.Error(t, h.nextResult())
	// A consistent list that is, per object, older than an event already
	// applied (a server whose list lags its watch) cannot move a back.
	h.nextList().answer("16", "", obj("a", "14"), obj("b", "16"))
	h.nextWatch().open()
	h.store.waitContents(t, "a@15", "b@16")
	rep := tracesOf[Replaced](h)
	require.Len(t, rep, 2)
	assert.Equal(t, 1, rep[1].Kept)
}

func TestItemWithoutNameIsReportedAndLeftOut(t *testing.T) {
	h := start(t, listWatchOpts)
	syncByList(t, h, "10", obj("a", "1"), &Obj{ObjectMeta: meta.ObjectMeta{Namespace: "ns", ResourceVersion: "2"}})
	h.store.waitContents(t, "a@1")
	e := h.onlyError(t)
	assert.Equal(t, "store", e.Op)
	assert.Contains(t, e.Error(), "has no name")
}

// checkedIndexer is a cache.Indexer whose writes are checked for
// resourceVersions going backwards.
type checkedIndexer struct {
	*cache.Indexer[*Obj]
	t *testing.T
}

func (c checkedIndexer) Update(o *Obj) error {
	if old, ok := c.GetByKey(objectKey(o.Namespace, o.Name)); ok && olderRV(o.ResourceVersion, old.ResourceVersion) {
		c.t.Errorf("%s went back from rv=%s to rv=%s", o.Name, old.ResourceVersion, o.ResourceVersion)
	}
	return c.Indexer.Update(o)
}

func TestIndexerStoreStreamsReplaceAndReusesUnchangedObjects(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	lw := newScriptLW()
	store := checkedIndexer{Indexer: cache.NewIndexer[*Obj](nil), t: t}
	var replaced []Replaced
	traced := make(chan struct{}, 10)
	r, err := NewReflector[*Obj](lw, store, Options{DisableStreamingList: true, Clock: clk, Trace: func(e TraceEvent) {
		if rep, ok := e.(Replaced); ok {
			replaced = append(replaced, rep)
			traced <- struct{}{}
		}
	}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.ListAndWatch(ctx); _ = r.ListAndWatch(ctx) }()
	defer func() { cancel(); <-done }()

	a1, b1 := obj("a", "1"), obj("b", "2")
	l := recv(t, lw.lists)
	assert.Nil(t, l.known, "the first list cannot reuse anything: no Known, no peeking")
	l.answer("10", "", a1, b1)
	w := recv(t, lw.watches).open()
	recv(t, traced)
	w.fail(status(410, meta.ReasonExpired))

	// Relist: a is unchanged (the LW asks known and hands back the stored
	// object), b changed.
	l = recv(t, lw.lists)
	require.NotNil(t, l.known, "a relist into a store that can be read gets a Known")
	got, ok := l.known("ns", "a", "1")
	require.True(t, ok)
	assert.Same(t, a1, got)
	_, ok = l.known("ns", "b", "1")
	assert.False(t, ok, "known matched a different resourceVersion")
	l.answer("20", "", obj("a", "1"), obj("b", "19"))
	recv(t, lw.watches).open()
	recv(t, traced)
	stored, ok := store.GetByKey("ns/a")
	require.True(t, ok)
	assert.Same(t, a1, stored, "the unchanged object was not reused")
	assert.Equal(t, Replaced{Objects: 2, Reused: 1, ResourceVersion: "20"}, replaced[1])
	assert.Equal(t, "20", store.ResourceVersion())
}

// resyncStore counts Resync calls.
type resyncStore struct {
	*mapStore
	resynced chan struct{}
}

func (s resyncStore) Resync() error {
	s.resynced <- struct{}{}
	return errors.New("resync refused")
}

func TestResyncPeriodCallsResync(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	lw := newScriptLW()
	store := resyncStore{mapStore: newMapStore(t), resynced: make(chan struct{}, 10)}
	errs := make(chan *Error, 10)
	r, err := NewReflector[*Obj](lw, store, Options{DisableStreamingList: true, Clock: clk, ResyncPeriod: time.Minute,
		OnError: func(e *Error) { errs <- e }})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	recv(t, lw.lists).answer("1", "")
	recv(t, lw.watches).open()
	wctx, wcancel := context.WithTimeout(context.Background(), testTimeout)
	defer wcancel()
	require.NoError(t, clk.WaitForTimer(wctx, time.Minute))
	clk.Step(time.Minute)
	recv(t, store.resynced)
	e := recv(t, errs)
	assert.Equal(t, "resync", e.Op)
	require.NoError(t, clk.WaitForTimer(wctx, time.Minute), "the next resync is scheduled")
	clk.Step(time.Minute)
	recv(t, store.resynced)
}

func TestNeedsHumanErrorsAreReportedAndRetriedSlowly(t *testing.T) {
	// A 404 is the resource gone (gone_test.go).
	for _, st := range []*meta.Status{status(401, meta.ReasonUnauthorized), status(403, meta.ReasonForbidden)} {
		t.Run(string(st.Reason), func(t *testing.T) {
			h := start(t, Options{DisableStreamingList: true, Backoff: Backoff{Max: 20 * time.Second}})
			for range 3 {
				h.nextList().fail(st)
				h.expectBackoff(20 * time.Second)
			}
			assert.False(t, h.r.HasSynced())
			errs := h.errors()
			require.Len(t, errs, 3)
			for _, e := range errs {
				assert.Equal(t, ClassNeedsHuman, e.Class)
				assert.Equal(t, "list", e.Op)
			}
			h.nextList().answer("5", "")
			h.nextWatch().open()
			h.waitTraces(func(h *harness) bool { return h.r.HasSynced() })
		})
	}
}
