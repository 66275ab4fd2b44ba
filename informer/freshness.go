package informer

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
)

// How fresh is the cache? The reflector writes changes into the queue and
// moves its resume point forward (after every event, bookmark and list);
// the informer applies what it pops to its Indexer. The Indexer reflects a
// resourceVersion once the queue is drained: every write the reflector
// made before it reached that resourceVersion has then been applied. The
// informer records it at two moments: when process finds the queue empty
// after applying a change, and when a bookmark or a list arrives while the
// queue is idle (nothing queued, nothing being processed).
//
// The reflector writes a change into the queue before it moves its resume
// point past it, so a drain can fall between the two: process applies the
// change, finds the queue empty and reads the point from before it. A quiet
// resource may then send nothing else for minutes, and the record would
// stay one change behind the cache. Two things close that gap. The queue's
// writer records the resourceVersion of every change once it is in the
// queue (written), and a drain takes the newer of that and the resume
// point. And while someone waits for freshness, the writer itself looks,
// after each write, whether the queue is already idle (catchUpLocked). A
// look that finds the queue busy marks the record behind before it checks,
// and the process loop looks again once the change in hand is done: the
// change in hand may be the very one, drained a moment too early.

// freshness is the informer's record of the resourceVersion its Indexer
// reflects. Its fields are guarded by the informer's mu.
type freshness struct {
	// rv is the resourceVersion the Indexer reflects; "" before the first
	// list is applied.
	rv string
	// waiters is closed when rv moves; nil while nobody waits, so that an
	// informer nobody asks costs nothing.
	waiters chan struct{}
	// bookmark and relist say that a bookmark or a list arrived since the
	// last progress entry.
	bookmark, relist bool
	// listRV is the resourceVersion of a list queued but perhaps not yet
	// applied: the reflector moves its own resume point only after the
	// list is queued, so a drain may come before it.
	listRV string
	// wanted counts the handlers with OnBookmark or OnSynced: progress
	// entries are appended only while it is positive.
	wanted int

	// The fields below are atomic, read and written without mu.
	//
	// written is the resourceVersion, as a number, of the newest change
	// written to the queue (0 before any); the writer stores it once the
	// change is queued. A set of namespaces keeps one per member instead.
	written atomic.Uint64
	// waiting counts the freshness waits in progress: while it is
	// positive, each write looks whether the queue is idle.
	waiting atomic.Int32
	// behind asks the process loop to look again after its Pop: a look
	// found the queue busy.
	behind atomic.Bool
}

// StaleCacheError is returned by WaitForFreshness when ctx ends before the
// cache reached the resourceVersion asked for.
type StaleCacheError struct {
	// Informer names the informer.
	Informer string
	// Want is the resourceVersion asked for, Have the one the cache
	// reflects ("" before its first list).
	Want, Have string
	// Err is ctx's error.
	Err error
}

// Error returns "<informer>: cache at resourceVersion <have>, waiting for
// <want>: <ctx error>".
func (e *StaleCacheError) Error() string {
	return fmt.Sprintf("%s: cache at resourceVersion %q, waiting for %q: %v", e.Informer, e.Have, e.Want, e.Err)
}

// Unwrap returns ctx's error.
func (e *StaleCacheError) Unwrap() error { return e.Err }

// StoreResourceVersion returns the resourceVersion the informer's Indexer
// reflects: every change the server made up to it is in the cache. It is
// "" before the first list is applied, and never moves back. Handlers may
// not have been told of every change yet (Registration.Backlog).
func (inf *Informer[T]) StoreResourceVersion() string {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.catchUpLocked(true)
	return inf.fresh.rv
}

// LastHeard returns when the informer last heard from its server: the end
// of a list or the arrival of a watch event or bookmark. It is the zero
// time before the first answer. Bookmarks come about once a minute from a
// real server, so an informer that has not heard from its server for
// several minutes may be cut off from it.
func (inf *Informer[T]) LastHeard() time.Time {
	if inf.multi != nil {
		return inf.multi.lastHeard()
	}
	return inf.refl.LastHeard()
}

// WaitForFreshness waits until the informer's cache reflects
// resourceVersion rv — typically the resourceVersion of an object the
// caller has just written — so that a read of the Lister sees that write
// or a later state (read-your-writes). It returns nil at once if the cache
// is already there. A relist counts: the list's resourceVersion is at least
// every earlier write's. It returns a *StaleCacheError wrapping ctx's error
// if ctx ends first, and an error if rv is not a resourceVersion the
// informer can compare (an unsigned integer, as every etcd-backed server
// gives).
func (inf *Informer[T]) WaitForFreshness(ctx context.Context, rv string) error {
	want, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: wait for freshness: resourceVersion %q is not an unsigned integer", inf.name, rv)
	}
	inf.fresh.waiting.Add(1)
	defer inf.fresh.waiting.Add(-1)
	for {
		inf.mu.Lock()
		inf.catchUpLocked(true)
		have := inf.fresh.rv
		if n, err := strconv.ParseUint(have, 10, 64); err == nil && n >= want {
			inf.mu.Unlock()
			return nil
		}
		if inf.fresh.waiters == nil {
			inf.fresh.waiters = make(chan struct{})
		}
		ch := inf.fresh.waiters
		inf.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return &StaleCacheError{Informer: inf.name, Want: rv, Have: have, Err: ctx.Err()}
		}
	}
}

// caughtUpLocked records that the Indexer reflects rv, wakes waiters, and
// appends a progress entry if a bookmark or list is pending and a handler
// asked for one. The caller holds mu and has made sure that everything
// the reflector wrote up to rv has been applied.
func (inf *Informer[T]) caughtUpLocked(rv string) {
	f := &inf.fresh
	f.listRV = ""
	if rv != "" && rv != f.rv && !olderRV(rv, f.rv) {
		f.rv = rv
		if f.waiters != nil {
			close(f.waiters)
			f.waiters = nil
		}
	}
	if !f.bookmark && !f.relist {
		return
	}
	if f.wanted > 0 && f.rv != "" {
		inf.log.appendLocked(entry[T]{kind: entryProgress, detail: &entryDetail{rv: f.rv, relist: f.relist}, at: inf.now()})
	}
	f.bookmark, f.relist = false, false
}

// drainedLocked is called by process, under mu, after it applied a change:
// if the queue is empty, the Indexer reflects the reflector's resume point
// and the newest change written. It reads them before it looks at the
// queue, since a change is written before either moves past it. It
// reports whether the queue was empty.
func (inf *Informer[T]) drainedLocked() bool {
	if inf.queue.Len() != 0 {
		return false
	}
	rv := inf.resumePointLocked()
	if inf.queue.Len() != 0 {
		return false
	}
	if inf.multi != nil {
		rv = inf.multi.caughtUpLocked()
	}
	inf.caughtUpLocked(rv)
	if inf.opts.Metrics != nil {
		inf.opts.Metrics.Set("kubecache_informer_store_objects", float64(inf.indexer.Len()), "informer", inf.name)
	}
	return true
}

// resumePointLocked reads how far the reflector has written: the newest
// of its resume point, the list queued last and the change written last.
// For a set of namespaces it reads each member's (readResumePointsLocked)
// and returns "". The caller holds mu.
func (inf *Informer[T]) resumePointLocked() string {
	if inf.multi != nil {
		inf.multi.readResumePointsLocked()
		return ""
	}
	rv := inf.refl.LastSyncResourceVersion()
	if l := inf.fresh.listRV; l != "" && (rv == "" || olderRV(rv, l)) {
		rv = l
	}
	return newerWritten(rv, inf.fresh.written.Load())
}

// newerWritten returns the written resourceVersion w if it is newer than
// rv (or rv is ""), else rv.
func newerWritten(rv string, w uint64) string {
	if w == 0 {
		return rv
	}
	if n, err := strconv.ParseUint(rv, 10, 64); rv != "" && (err != nil || n >= w) {
		return rv
	}
	return strconv.FormatUint(w, 10)
}

// catchUpLocked records, if the queue is idle, that the Indexer reflects
// how far the reflector has written. It is called outside process: by a
// write someone waits on, a bookmark, a list, a freshness read or wait,
// and by the process loop after a Pop. A look that may find the queue
// busy with the change in hand (mark) first asks the process loop to look
// again: that change may have been drained before this look could read
// what moved. The caller holds mu.
func (inf *Informer[T]) catchUpLocked(mark bool) {
	if inf.idle == nil {
		return
	}
	if mark {
		inf.fresh.behind.Store(true)
	}
	rv := inf.resumePointLocked()
	if !inf.idle.Idle() {
		return
	}
	if inf.multi != nil {
		rv = inf.multi.caughtUpLocked()
	}
	inf.caughtUpLocked(rv)
	inf.log.publishLocked()
}

// lookAgain is the process loop's second look after a Pop, when a look
// found the queue busy.
func (inf *Informer[T]) lookAgain() {
	if !inf.fresh.behind.Load() {
		return
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.fresh.behind.Store(false)
	inf.catchUpLocked(false)
}

// wrote is called by the queue's writer once a change at resourceVersion
// rv is in the queue: it stores rv in into (the informer's written, or a
// member's) and, while someone waits for freshness, catches up.
func (inf *Informer[T]) wrote(rv string, into *atomic.Uint64) {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return
	}
	into.Store(n)
	if inf.fresh.waiting.Load() == 0 {
		return
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.catchUpLocked(true)
}

// countEvent counts one change applied to the cache.
func (inf *Informer[T]) countEvent(kind string) {
	inf.opts.Metrics.Add("kubecache_informer_events_total", 1, "informer", inf.name, "type", kind)
}

// progressed is called from the reflector's goroutine after a bookmark
// (relist false) or a list (relist true) moved its resume point to rv. If
// nothing is queued or being processed, the Indexer reflects rv now;
// otherwise process records it once it drains the queue.
func (inf *Informer[T]) progressed(rv string, relist bool) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if relist {
		inf.fresh.relist = true
		inf.fresh.listRV = rv
		if inf.opts.Metrics != nil {
			inf.opts.Metrics.Add("kubecache_informer_lists_total", 1, "informer", inf.name)
		}
	} else {
		inf.fresh.bookmark = true
	}
	inf.catchUpLocked(true)
}

// idler is a queue that can tell that everything written to it has been
// processed (cache.FIFO and cache.DeltaFIFO can).
type idler interface{ Idle() bool }

// olderRV reports whether a is known to be older than b: both are unsigned
// integers and a < b.
func olderRV(a, b string) bool {
	x, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return false
	}
	y, err := strconv.ParseUint(b, 10, 64)
	return err == nil && x < y
}
