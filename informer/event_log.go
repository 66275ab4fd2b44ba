package informer

import (
	"sync"
	"sync/atomic"

	"github.com/kubecache/kubecache/meta"
)

// The event log is how one change reaches many handlers without being
// copied to each. The informer appends every notification once; each
// handler's goroutine reads the log from its own cursor, at its own pace.
// A handler's buffer is therefore the part of the log between its cursor
// and the end: a slow handler holds back only its own cursor, never the
// writer or another reader.
//
// The log is a singly linked list of fixed-size segments. The writer holds
// only the last segment and each reader only the segment it is reading, so
// a segment every cursor has left is unreachable and the garbage collector
// frees it: memory follows the slowest handler's backlog, and nothing
// needs to be trimmed by hand.
//
// One writer at a time (the informer holds its mu) appends entries and then
// publishes them by storing the new length; readers read only entries below
// the published length, which never change once published, so readers take
// no lock at all. A reader with nothing to read sleeps on a condition
// variable that publish broadcasts, and only when someone is waiting.

// entryKind says what one log entry tells a handler.
type entryKind uint8

const (
	// entryAdd: OnAdd(obj, flag=initial).
	entryAdd entryKind = iota + 1
	// entryUpdate: OnUpdate(old, obj).
	entryUpdate
	// entryDelete: OnDelete(obj, flag=finalStateUnknown).
	entryDelete
	// entryResync: OnUpdate(obj, obj) for the handlers in detail.
	entryResync
	// entryProgress: the cache reached detail.rv by a bookmark
	// (HandlerOptions.OnBookmark) or a list (HandlerOptions.OnSynced).
	// It is appended only while a handler asked for one of them.
	entryProgress
)

// entry is one notification, shared by every handler.
type entry[T meta.Object] struct {
	kind entryKind
	// flag is initial for entryAdd, finalStateUnknown for entryDelete.
	flag     bool
	old, obj T
	// detail names the handlers an entryResync is for, or holds an
	// entryProgress's resourceVersion.
	detail *entryDetail
	// at is when the entry was appended, in nanoseconds since the
	// informer's epoch, for Backlog.Oldest. (A time.Time would hold a
	// pointer, one more write barrier per entry.)
	at int64
}

// segmentSize is the number of entries per segment: large enough that
// allocating segments costs little per event, small enough that a
// segment's worth of objects held by a lagging handler stays small.
const segmentSize = 256

// segment is one block of the log.
type segment[T meta.Object] struct {
	// base is the sequence number of entries[0].
	base    uint64
	entries [segmentSize]entry[T]
	// next is set, before any of its entries is published, once this
	// segment is full.
	next atomic.Pointer[segment[T]]
}

// eventLog is the informer's log of notifications.
type eventLog[T meta.Object] struct {
	// tail and used are the writer's: the last segment and how many of its
	// entries are written. Only the holder of the informer's mu touches
	// them.
	tail *segment[T]
	used int
	// appended counts the entries written, published or not; it too is
	// touched only under the informer's mu.
	appended uint64

	// published is the number of entries readers may read.
	published atomic.Uint64

	// waitMu guards the sleeping of readers on cond; waiters counts them,
	// so that publish takes waitMu only when someone sleeps.
	waitMu  sync.Mutex
	cond    *sync.Cond
	waiters atomic.Int32
}

func newEventLog[T meta.Object]() *eventLog[T] {
	l := &eventLog[T]{tail: &segment[T]{}}
	l.cond = sync.NewCond(&l.waitMu)
	return l
}

// appendLocked writes e after the last entry, unpublished. The caller holds
// the informer's mu.
func (l *eventLog[T]) appendLocked(e entry[T]) {
	if l.used == segmentSize {
		s := &segment[T]{base: l.tail.base + segmentSize}
		l.tail.next.Store(s)
		l.tail, l.used = s, 0
	}
	l.tail.entries[l.used] = e
	l.used++
	l.appended++
}

// pendingLocked reports how many appended entries are not published yet.
func (l *eventLog[T]) pendingLocked() uint64 { return l.appended - l.published.Load() }

// publishLocked makes every appended entry readable and wakes sleeping
// readers. The caller holds the informer's mu.
func (l *eventLog[T]) publishLocked() {
	if l.published.Load() == l.appended {
		return
	}
	l.published.Store(l.appended)
	l.wake()
}

// wake wakes every sleeping reader, so each can look again at the log and
// at whether it should stop.
func (l *eventLog[T]) wake() {
	if l.waiters.Load() == 0 {
		return
	}
	l.waitMu.Lock()
	l.cond.Broadcast()
	l.waitMu.Unlock()
}

// endLocked returns a cursor at the end of the log, after every appended
// entry: what a handler registered now starts reading from. The caller
// holds the informer's mu.
func (l *eventLog[T]) endLocked() cursor[T] {
	return cursor[T]{seg: l.tail, i: l.used}
}

// wait blocks until entries beyond seq are published or stop reports true.
// It returns false if it returned because of stop.
func (l *eventLog[T]) wait(seq uint64, stop func() bool) bool {
	if l.published.Load() > seq {
		return true
	}
	l.waitMu.Lock()
	defer l.waitMu.Unlock()
	l.waiters.Add(1)
	defer l.waiters.Add(-1)
	for l.published.Load() <= seq {
		if stop() {
			return false
		}
		l.cond.Wait()
	}
	return true
}

// cursor is a reader's position: the next entry it reads is
// seg.entries[i]. It is owned by one reader.
type cursor[T meta.Object] struct {
	seg *segment[T]
	i   int
}

// seq is the sequence number of the next entry.
func (c *cursor[T]) seq() uint64 { return c.seg.base + uint64(c.i) }

// next returns the next entry and moves past it. The caller must have
// checked that the entry is published.
func (c *cursor[T]) next() *entry[T] {
	if c.i == segmentSize {
		c.seg, c.i = c.seg.next.Load(), 0
	}
	e := &c.seg.entries[c.i]
	c.i++
	return e
}
