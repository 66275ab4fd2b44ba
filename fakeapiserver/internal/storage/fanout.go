package storage

import (
	"sort"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/pmap"
)

// The fan-out: every commit hands its change to the queue of each watcher
// of that resource, without blocking. A watcher that cannot keep up finds
// its queue full and is dropped, as the real server drops slow watchers;
// its handler notices and ends the stream. Each change caches its encoded
// object per format, so an event is encoded once however many watchers
// send it.

// StopReason says why the store stopped feeding a watcher.
type StopReason uint8

// The reasons a watcher's feed ends.
const (
	stopNone StopReason = iota
	stopTooSlow
	// StopResourceGone: the resource was removed (its CRD deleted).
	StopResourceGone
	// StopCut: fault injection cut the watch between events.
	StopCut
	// StopCutMidFrame: fault injection cut the watch inside an event.
	StopCutMidFrame
	// StopServerClosing: the server is closing or restarting.
	StopServerClosing
	// StopStorageReset: the resource's storage was rebuilt (its CRD's
	// spec changed).
	StopStorageReset
)

// String describes the reason for logs.
func (r StopReason) String() string {
	switch r {
	case stopTooSlow:
		return "watcher too slow: its queue is full"
	case StopResourceGone:
		return "resource removed"
	case StopCut:
		return "cut by fault injection"
	case StopCutMidFrame:
		return "cut mid-frame by fault injection"
	case StopServerClosing:
		return "server closing"
	case StopStorageReset:
		return "storage reset"
	}
	return "none"
}

// Watcher is one open watch's registration with the store.
type Watcher struct {
	table string
	Queue chan *Change
	// Done is closed once, by stop.
	Done     chan struct{}
	stopOnce sync.Once
	// mu guards reason, abort and the fault flags below.
	mu     sync.Mutex
	reason StopReason
	// abort, set by the handler, interrupts a write blocked on a client
	// that does not read.
	abort func()
	// corrupt replaces the next event with a malformed frame (fault
	// injection).
	corrupt bool
	// stall makes the handler stop reading its queue (fault injection).
	stall chan struct{}
	// Info describes the watch for fault matching and WaitForWatchers.
	Info WatchInfo
}

// WatchInfo is what fault rules and WaitForWatchers match a watch by.
type WatchInfo struct {
	Group, Resource, Namespace string
	// Client identifies who opened the watch (MaxWatchersPerUser).
	Client string
}

func newWatcher(table string, queueLen int, info WatchInfo) *Watcher {
	return &Watcher{table: table, Queue: make(chan *Change, queueLen), Done: make(chan struct{}), Info: info}
}

// Stop ends the watcher's feed with a reason; only the first reason counts.
func (w *Watcher) Stop(reason StopReason) {
	w.stopOnce.Do(func() {
		w.mu.Lock()
		w.reason = reason
		w.mu.Unlock()
		close(w.Done)
	})
}

// IsStopped reports whether stop was called.
func (w *Watcher) IsStopped() bool {
	select {
	case <-w.Done:
		return true
	default:
		return false
	}
}

// Reason returns why the feed ended (stopNone while it runs).
func (w *Watcher) Reason() StopReason {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason
}

// interrupt unblocks a write in progress, if the handler registered a
// way. It calls abort under mu, so that once the handler has cleared it
// (SetAbort(nil) as it returns) no call can still reach a response the
// HTTP server has finished with; abort only sets a deadline, which does
// not wait for the handler.
func (w *Watcher) interrupt() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.abort != nil {
		w.abort()
	}
}

// TakeCorrupt reports and clears the corrupt-next-frame fault.
func (w *Watcher) TakeCorrupt() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.corrupt
	w.corrupt = false
	return c
}

// MarkCorrupt makes the next event go out as a malformed frame (fault
// injection).
func (w *Watcher) MarkCorrupt() {
	w.mu.Lock()
	w.corrupt = true
	w.mu.Unlock()
}

// MarkStalled makes the handler stop reading the queue (fault injection),
// so the slow-watcher rule closes the watch once the queue fills.
func (w *Watcher) MarkStalled() {
	w.mu.Lock()
	if w.stall == nil {
		w.stall = make(chan struct{})
	}
	w.mu.Unlock()
}

// StallChan returns the channel a stalled watcher waits on instead of
// reading its queue (nil when not stalled).
func (w *Watcher) StallChan() chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stall
}

// SetAbort registers how to interrupt the handler's write in progress
// (a write blocked on a client that does not read); the handler clears
// it with nil before it returns.
func (w *Watcher) SetAbort(f func()) {
	w.mu.Lock()
	w.abort = f
	w.mu.Unlock()
}

// WatchStart says where a new watch begins.
type WatchStart struct {
	// initial: send the current state first (a snapshot at the current
	// resourceVersion), then changes after it.
	Initial bool
	// from: without initial, send changes with rv > from.
	From int64
}

// Registration is what register hands a new watch: its watcher, the
// changes it must replay before its queue, and for an initial-events watch
// the snapshot and its resourceVersion.
type Registration struct {
	Watcher    *Watcher
	Backlog    []*Change
	Snapshot   pmap.Map[*Object]
	SnapshotRV int64
}

// Register adds a watcher for table. Registration and the snapshot or
// backlog happen under one lock, so no change falls between them.
func (s *Store) Register(table string, start WatchStart, queueLen int, info WatchInfo) (Registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Registration{}, ErrServerClosing
	}
	if s.dropped[table] {
		return Registration{}, ErrResourceGone
	}
	reg := Registration{Watcher: newWatcher(table, queueLen, info)}
	if start.Initial {
		reg.Snapshot = s.tableLocked(table).cur
		reg.SnapshotRV = s.rv
	} else {
		if start.From < s.compacted || start.From < s.watchFloor[table] {
			return Registration{}, ErrCompacted
		}
		i := sort.Search(len(s.log), func(i int) bool { return s.log[i].RV > start.From })
		for _, c := range s.log[i:] {
			if c.table == table {
				reg.Backlog = append(reg.Backlog, c)
			}
		}
		reg.SnapshotRV = start.From
	}
	set := s.watchers[table]
	if set == nil {
		set = map[*Watcher]struct{}{}
		s.watchers[table] = set
	}
	set[reg.Watcher] = struct{}{}
	s.watchersChangedLocked()
	return reg, nil
}

// Unregister removes w from the fan-out (idempotent).
func (s *Store) Unregister(w *Watcher) {
	s.mu.Lock()
	delete(s.watchers[w.table], w)
	s.watchersChangedLocked()
	s.mu.Unlock()
}

func (s *Store) watchersChangedLocked() {
	close(s.wchanged)
	s.wchanged = make(chan struct{})
}

// CountWatchers counts registered watchers matching fn and returns a
// channel closed at the next registration change.
func (s *Store) CountWatchers(fn func(w *Watcher) bool) (int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, set := range s.watchers {
		for w := range set {
			if fn(w) {
				n++
			}
		}
	}
	return n, s.wchanged
}

// BookmarkRV returns the resourceVersion a bookmark for w may carry: the
// store's, provided nothing is still queued for w (0 otherwise).
func (s *Store) BookmarkRV(w *Watcher) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(w.Queue) > 0 {
		return 0
	}
	return s.rv
}

// EachWatcher calls fn for every registered watcher, under the lock.
func (s *Store) EachWatcher(fn func(w *Watcher)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, set := range s.watchers {
		for w := range set {
			fn(w)
		}
	}
}

// CloseAll ends every watch and refuses new ones until reopen.
func (s *Store) CloseAll(reason StopReason, refuse bool) {
	s.mu.Lock()
	var all []*Watcher
	for table, set := range s.watchers {
		for w := range set {
			all = append(all, w)
		}
		delete(s.watchers, table)
	}
	s.watchersChangedLocked()
	if refuse {
		s.closed = true
	}
	s.mu.Unlock()
	for _, w := range all {
		w.Stop(reason)
		w.interrupt()
	}
}

// encodings caches a change's encoded objects, one entry per variant.
type encodings struct {
	// mu guards entries.
	mu      sync.Mutex
	entries []encoding
}

type encoding struct {
	enc  Encoding
	prev bool
	data []byte
}

// Encoding is one encoded form of an object (a wire format and
// version); the layer that writes watch events defines them. Its values
// must be comparable: equal values name the same bytes, which is how a
// change encodes its object once for all the watchers that want that form.
type Encoding interface {
	// Encode returns the object in this form.
	Encode(o *Object) []byte
}

// Encoded returns the object of c (with prev, the previous state carrying
// the change's resourceVersion: what a watcher whose selector stopped
// matching is sent) in the form e, encoding it on first use.
func (c *Change) Encoded(e Encoding, prev bool) []byte {
	c.enc.mu.Lock()
	defer c.enc.mu.Unlock()
	for _, x := range c.enc.entries {
		if x.enc == e && x.prev == prev {
			return x.data
		}
	}
	obj := c.Obj
	if prev {
		if p, err := c.Prev.WithResourceVersion(c.RV); err == nil {
			obj = p
		} else {
			obj = c.Prev
		}
	}
	data := e.Encode(obj)
	c.enc.entries = append(c.enc.entries, encoding{enc: e, prev: prev, data: data})
	return data
}

// wants reports whether c can concern w: a watch in one namespace never
// sees changes in another (an object's namespace is immutable), so they are
// not queued for it at all. Label and field selectors are left to the
// watch, which also sends transitions out of its selector.
func (w *Watcher) wants(c *Change) bool {
	return w.Info.Namespace == "" || c.Obj == nil || c.Obj.Meta == nil || c.Obj.Meta.Namespace == w.Info.Namespace
}
