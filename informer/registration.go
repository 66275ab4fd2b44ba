package informer

import (
	"cmp"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/meta"
)

// HandlerOptions configure one handler added with AddEventHandler. The zero
// value means: no name, no resync.
type HandlerOptions struct {
	// Name names the handler in errors and in its Registration's Name; ""
	// numbers it ("handler-3").
	Name string
	// ResyncPeriod, when positive, re-delivers every cached object to this
	// handler that often (OnUpdate(obj, obj)), so a controller reconciles
	// state it may have got wrong. Periods under MinResyncPeriod are
	// raised to it. Zero means never; negative is an error.
	ResyncPeriod time.Duration
	// OnBookmark, if set, is called with a resourceVersion the server
	// confirmed by a bookmark once the handler has been handed every
	// change up to it: the handler's view is then that fresh. It is
	// called from the handler's goroutine, in order with its other calls.
	OnBookmark func(resourceVersion string)
	// OnSynced, if set, is called with a list's resourceVersion once the
	// handler has been handed the whole list: the initial one (before
	// Registration.HasSynced turns true) and every relist after it (a
	// watch that could not resume). A handler added after the informer
	// synced hears of relists only. It is called like OnBookmark.
	OnSynced func(resourceVersion string)
	// Predicate, if it has a function set, decides which notifications
	// reach the handler (GenerationChanged, LabelsChanged, And, Or, Not
	// …). Skipped ones are not counted in Backlog.Delivered.
	Predicate Predicate
}

// MinResyncPeriod is the shortest resync period a handler gets: asking for
// less would make the informer re-deliver the whole cache continuously.
const MinResyncPeriod = time.Second

// Backlog is what a handler has not processed yet, and what it has.
type Backlog struct {
	// Queued is the number of notifications waiting for the handler, not
	// counting the one it may be processing. It counts resync
	// notifications meant for other handlers, which it will skip.
	Queued int
	// Oldest is how long the oldest waiting notification has waited; zero
	// when nothing waits.
	Oldest time.Duration
	// Delivered counts the handler calls made so far.
	Delivered uint64
	// Panics counts the handler calls that panicked.
	Panics uint64
}

// HandlerPanicError is reported to Options.OnError when a handler panics.
// The handler goes on with its next notification.
type HandlerPanicError struct {
	// Informer and Handler name where the panic happened.
	Informer, Handler string
	// Method is "OnAdd", "OnUpdate", "OnDelete", "OnBookmark" or
	// "OnSynced"; Key is the object's key (the resourceVersion for the
	// last two).
	Method, Key string
	// Value is what the handler panicked with, Stack where.
	Value any
	Stack []byte
}

// Error returns "<informer>: handler <name>: <method> <key> panicked: <value>".
func (e *HandlerPanicError) Error() string {
	return fmt.Sprintf("%s: handler %s: %s %s panicked: %v", e.Informer, e.Handler, e.Method, e.Key, e.Value)
}

// ErrRemoved is returned by WaitForCacheSync for a Registration removed
// before it synced.
var ErrRemoved = errors.New("handler removed")

// Registration is one handler added to an informer. It reports whether the
// handler has received the informer's initial state, how far behind it is,
// and removes it. It is safe for concurrent use.
type Registration[T meta.Object] struct {
	l *listener[T]
}

// Name returns "<informer>/<handler>".
func (r *Registration[T]) Name() string { return r.l.inf.name + "/" + r.l.name }

// HasSynced reports whether the handler has processed every notification
// of the informer's initial list — or, for a handler added after the
// informer synced, an OnAdd for every object the cache held when it was
// added. It never turns false again.
func (r *Registration[T]) HasSynced() bool { return r.l.synced.Load() }

// Synced returns a channel closed once HasSynced is true.
func (r *Registration[T]) Synced() <-chan struct{} { return r.l.syncedCh }

// SyncError says why the handler has not synced: the informer's own sync
// error if it has not synced, else how much the handler has left; nil once
// synced.
func (r *Registration[T]) SyncError() error {
	switch {
	case r.HasSynced():
		return nil
	case r.l.removed.Load():
		return ErrRemoved
	case !r.l.inf.HasSynced():
		return r.l.inf.SyncError()
	}
	return fmt.Errorf("handler still processing its initial events (%d queued)", r.Backlog().Queued)
}

// Remove stops delivering to the handler. Once Remove has returned, the
// handler receives nothing more, except a notification whose delivery had
// already begun: that call runs to its end (Run waits for it). Remove may
// be called from the handler itself, and more than once.
func (r *Registration[T]) Remove() { r.l.inf.removeListener(r.l) }

// Backlog returns the handler's backlog and counters.
func (r *Registration[T]) Backlog() Backlog { return r.l.backlog() }

// Registrations returns a Registration for every handler the informer
// delivers to, in the order they were added; a removed handler is not in
// it. It is for views of the informer (which handler is behind?), and
// costs nothing until called.
func (inf *Informer[T]) Registrations() []*Registration[T] {
	inf.mu.Lock()
	ls := make([]*listener[T], 0, len(inf.listeners))
	for _, l := range inf.listeners {
		ls = append(ls, l)
	}
	inf.mu.Unlock()
	slices.SortFunc(ls, func(a, b *listener[T]) int { return cmp.Compare(a.id, b.id) })
	regs := make([]*Registration[T], len(ls))
	for i, l := range ls {
		regs[i] = &Registration[T]{l: l}
	}
	return regs
}

// listener delivers the log to one handler, on its own goroutine.
type listener[T meta.Object] struct {
	inf  *Informer[T]
	h    Handler[T]
	id   uint64
	name string

	// resync is the handler's resync period (zero: none); nextResync is
	// when it is next due, guarded by the informer's mu.
	resync     time.Duration
	nextResync time.Time

	// snapshot holds, for a handler added while the informer held
	// objects, the objects it receives first, as OnAdd(obj, true). It
	// belongs to the goroutine; snapshotLeft counts what is left of it,
	// for Backlog, and registeredAt timestamps it.
	snapshot     []T
	snapshotLeft atomic.Int64
	registeredAt time.Time

	// snapshotDone is set once the snapshot is delivered.
	snapshotDone atomic.Bool

	// cur is the goroutine's position in the log. seg is a copy of
	// cur.seg that other goroutines may read; taken is the sequence number
	// of the first entry not yet taken for delivery (for Backlog), done
	// that of the first entry not yet delivered in full (for HasSynced).
	cur   cursor[T]
	seg   atomic.Pointer[segment[T]]
	taken atomic.Uint64
	done  atomic.Uint64

	removed  atomic.Bool
	synced   atomic.Bool
	syncedCh chan struct{}
	// syncOnce closes syncedCh.
	syncOnce sync.Once

	delivered, panics atomic.Uint64

	// onBookmark and onSynced are the handler's HandlerOptions callbacks.
	onBookmark, onSynced func(string)
	// pred filters the handler's calls when filtered is set.
	pred     Predicate
	filtered bool
	// measured says the informer has a Sink: deliveries are timed
	// (metrics.go).
	measured bool
}

// stopping reports whether the listener must stop delivering.
func (l *listener[T]) stopping() bool { return l.removed.Load() || l.inf.stopping.Load() }

// markSynced records that the handler has its initial state.
func (l *listener[T]) markSynced() {
	l.syncOnce.Do(func() {
		l.synced.Store(true)
		close(l.syncedCh)
	})
}

// run delivers the snapshot, then the log, until the listener is removed
// or the informer stops.
func (l *listener[T]) run() {
	log := l.inf.log
	for i, obj := range l.snapshot {
		if l.stopping() {
			return
		}
		var zero T
		l.snapshot[i] = zero
		l.snapshotLeft.Add(-1)
		l.call(entryAdd, obj, obj, true)
	}
	l.snapshot = nil
	l.snapshotDone.Store(true)
	l.checkSynced()
	for {
		published := log.published.Load()
		if l.measured {
			l.reportBacklog(published)
		}
		for l.cur.seq() < published {
			if l.stopping() {
				return
			}
			e := l.cur.next()
			if l.cur.i == 1 {
				l.seg.Store(l.cur.seg)
			}
			seq := l.cur.seq()
			l.taken.Store(seq)
			if l.measured {
				l.deliverMeasured(e)
			} else {
				l.deliver(e)
			}
			l.done.Store(seq)
			l.checkSynced()
		}
		if !log.wait(published, l.stopping) {
			return
		}
	}
}

// checkSynced marks the listener synced once the informer has synced and
// the listener has delivered its snapshot and every notification appended
// before the informer synced. Both the listener (after each delivery) and
// the informer (when it syncs) call it: the listener stores done before it
// loads the informer's synced flag, the informer stores its flag before it
// loads done, so at least one of them sees the other's write.
func (l *listener[T]) checkSynced() {
	if l.synced.Load() || !l.snapshotDone.Load() || !l.inf.synced.Load() {
		return
	}
	if l.done.Load() >= l.inf.syncSeq.Load() {
		l.markSynced()
	}
}

// deliver hands one log entry to the handler, or skips it.
func (l *listener[T]) deliver(e *entry[T]) {
	switch e.kind {
	case entryResync:
		if e.detail.includes(l.id) {
			l.call(entryUpdate, e.obj, e.obj, false)
		}
		return
	case entryProgress:
		l.progress(e.detail)
		return
	}
	l.call(e.kind, e.old, e.obj, e.flag)
}

// call makes one handler call, recovering a panic.
func (l *listener[T]) call(kind entryKind, old, obj T, flag bool) {
	defer func() {
		if v := recover(); v != nil {
			l.panics.Add(1)
			l.inf.report(&HandlerPanicError{
				Informer: l.inf.name, Handler: l.name,
				Method: methodName(kind), Key: meta.Key(obj),
				Value: v, Stack: debug.Stack(),
			})
		}
	}()
	if l.filtered && !l.passes(kind, old, obj, flag) {
		return
	}
	l.delivered.Add(1)
	switch kind {
	case entryAdd:
		l.h.OnAdd(obj, flag)
	case entryUpdate:
		l.h.OnUpdate(old, obj)
	case entryDelete:
		l.h.OnDelete(obj, flag)
	}
}

// passes asks the handler's predicate about one call.
func (l *listener[T]) passes(kind entryKind, old, obj T, flag bool) bool {
	switch kind {
	case entryAdd:
		return l.pred.add(obj.GetObjectMeta(), flag)
	case entryDelete:
		return l.pred.delete(obj.GetObjectMeta(), flag)
	}
	return l.pred.update(old.GetObjectMeta(), obj.GetObjectMeta())
}

// progress calls OnSynced or OnBookmark for a progress entry, recovering a
// panic.
func (l *listener[T]) progress(d *entryDetail) {
	fn, method := l.onBookmark, "OnBookmark"
	if d.relist {
		fn, method = l.onSynced, "OnSynced"
	}
	if fn == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			l.panics.Add(1)
			l.inf.report(&HandlerPanicError{
				Informer: l.inf.name, Handler: l.name, Method: method,
				Key: d.rv, Value: v, Stack: debug.Stack(),
			})
		}
	}()
	fn(d.rv)
}

func methodName(k entryKind) string {
	switch k {
	case entryAdd:
		return "OnAdd"
	case entryDelete:
		return "OnDelete"
	}
	return "OnUpdate"
}

// backlog computes the listener's Backlog from another goroutine.
func (l *listener[T]) backlog() Backlog {
	b := Backlog{Delivered: l.delivered.Load(), Panics: l.panics.Load()}
	now := l.inf.clock.Now()
	snap := l.snapshotLeft.Load()
	if l.removed.Load() {
		return b
	}
	taken := l.taken.Load()
	published := l.inf.log.published.Load()
	if published > taken {
		b.Queued = int(published - taken)
	}
	b.Queued += int(snap)
	switch {
	case snap > 0:
		b.Oldest = now.Sub(l.registeredAt)
	case b.Queued > 0:
		if at, ok := l.entryTime(taken); ok {
			b.Oldest = max(now.Sub(at), 0)
		}
	}
	return b
}

// entryTime returns when the entry with sequence number seq was appended,
// if the listener has not moved past its segment meanwhile.
func (l *listener[T]) entryTime(seq uint64) (time.Time, bool) {
	s := l.seg.Load()
	for s != nil && seq >= s.base+segmentSize {
		s = s.next.Load()
	}
	if s == nil || seq < s.base {
		return time.Time{}, false
	}
	return l.inf.epoch.Add(time.Duration(s.entries[seq-s.base].at)), true
}
