package fakeapiserver

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

// stopReason says why the store stopped feeding a watcher.
type stopReason uint8

const (
	stopNone stopReason = iota
	stopTooSlow
	stopResourceGone
	stopCut
	stopCutMidFrame
	stopServerClosing
)

func (r stopReason) String() string {
	switch r {
	case stopTooSlow:
		return "watcher too slow: its queue is full"
	case stopResourceGone:
		return "resource removed"
	case stopCut:
		return "cut by fault injection"
	case stopCutMidFrame:
		return "cut mid-frame by fault injection"
	case stopServerClosing:
		return "server closing"
	}
	return "none"
}

// watcher is one open watch's registration with the store.
type watcher struct {
	table string
	queue chan *change
	// done is closed once, by stop.
	done     chan struct{}
	stopOnce sync.Once
	// mu guards reason, abort and the fault flags below.
	mu     sync.Mutex
	reason stopReason
	// abort, set by the handler, interrupts a write blocked on a client
	// that does not read.
	abort func()
	// corrupt replaces the next event with a malformed frame (fault
	// injection).
	corrupt bool
	// stall makes the handler stop reading its queue (fault injection).
	stall chan struct{}
	// info describes the watch for fault matching and WaitForWatchers.
	info watchInfo
}

// watchInfo is what fault rules and WaitForWatchers match a watch by.
type watchInfo struct {
	group, resource, namespace string
	// client identifies who opened the watch (MaxWatchersPerUser).
	client string
}

func newWatcher(table string, queueLen int, info watchInfo) *watcher {
	return &watcher{table: table, queue: make(chan *change, queueLen), done: make(chan struct{}), info: info}
}

// stop ends the watcher's feed with a reason; only the first reason counts.
func (w *watcher) stop(reason stopReason) {
	w.stopOnce.Do(func() {
		w.mu.Lock()
		w.reason = reason
		w.mu.Unlock()
		close(w.done)
	})
}

// isStopped reports whether stop was called.
func (w *watcher) isStopped() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

func (w *watcher) stopReason() stopReason {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason
}

// interrupt unblocks a write in progress, if the handler registered a way.
func (w *watcher) interrupt() {
	w.mu.Lock()
	abort := w.abort
	w.mu.Unlock()
	if abort != nil {
		abort()
	}
}

// takeCorrupt reports and clears the corrupt-next-frame fault.
func (w *watcher) takeCorrupt() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.corrupt
	w.corrupt = false
	return c
}

// stallChan returns the channel a stalled watcher waits on instead of
// reading its queue (nil when not stalled).
func (w *watcher) stallChan() chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stall
}

func (w *watcher) setAbort(f func()) {
	w.mu.Lock()
	w.abort = f
	w.mu.Unlock()
}

// watchStart says where a new watch begins.
type watchStart struct {
	// initial: send the current state first (a snapshot at the current
	// resourceVersion), then changes after it.
	initial bool
	// from: without initial, send changes with rv > from.
	from int64
}

// watchRegistration is what register hands a new watch: its watcher, the
// changes it must replay before its queue, and for an initial-events watch
// the snapshot and its resourceVersion.
type watchRegistration struct {
	w        *watcher
	backlog  []*change
	snapshot pmap.Map[*stored]
	snapRV   int64
}

// register adds a watcher for table. Registration and the snapshot or
// backlog happen under one lock, so no change falls between them.
func (s *store) register(table string, start watchStart, queueLen int, info watchInfo) (watchRegistration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return watchRegistration{}, errServerClosing
	}
	if s.dropped[table] {
		return watchRegistration{}, errResourceGone
	}
	reg := watchRegistration{w: newWatcher(table, queueLen, info)}
	if start.initial {
		reg.snapshot = s.tableLocked(table).cur
		reg.snapRV = s.rv
	} else {
		if start.from < s.compacted {
			return watchRegistration{}, errCompacted
		}
		i := sort.Search(len(s.log), func(i int) bool { return s.log[i].rv > start.from })
		for _, c := range s.log[i:] {
			if c.table == table {
				reg.backlog = append(reg.backlog, c)
			}
		}
		reg.snapRV = start.from
	}
	set := s.watchers[table]
	if set == nil {
		set = map[*watcher]struct{}{}
		s.watchers[table] = set
	}
	set[reg.w] = struct{}{}
	s.watchersChangedLocked()
	return reg, nil
}

// unregister removes w from the fan-out (idempotent).
func (s *store) unregister(w *watcher) {
	s.mu.Lock()
	delete(s.watchers[w.table], w)
	s.watchersChangedLocked()
	s.mu.Unlock()
}

func (s *store) watchersChangedLocked() {
	close(s.wchanged)
	s.wchanged = make(chan struct{})
}

// countWatchers counts registered watchers matching fn and returns a
// channel closed at the next registration change.
func (s *store) countWatchers(fn func(w *watcher) bool) (int, <-chan struct{}) {
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

// bookmarkRV returns the resourceVersion a bookmark for w may carry: the
// store's, provided nothing is still queued for w (0 otherwise).
func (s *store) bookmarkRV(w *watcher) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(w.queue) > 0 {
		return 0
	}
	return s.rv
}

// eachWatcher calls fn for every registered watcher, under the lock.
func (s *store) eachWatcher(fn func(w *watcher)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, set := range s.watchers {
		for w := range set {
			fn(w)
		}
	}
}

// closeAll ends every watch and refuses new ones until reopen.
func (s *store) closeAll(reason stopReason, refuse bool) {
	s.mu.Lock()
	var all []*watcher
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
		w.stop(reason)
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
	key  encodingKey
	data []byte
}

// encodingKey names one encoded form of a change's object.
type encodingKey struct {
	// prev selects the previous state with the change's resourceVersion
	// (what a watcher whose selector stopped matching is sent).
	prev       bool
	format     outputFormat
	apiVersion string
}

// encoded returns the object of c encoded for key, encoding it on first
// use.
func (c *change) encoded(key encodingKey) []byte {
	c.enc.mu.Lock()
	defer c.enc.mu.Unlock()
	for _, e := range c.enc.entries {
		if e.key == key {
			return e.data
		}
	}
	obj := c.obj
	if key.prev {
		if p, err := c.prev.withResourceVersion(c.rv); err == nil {
			obj = p
		} else {
			obj = c.prev
		}
	}
	data := encodeObject(obj, key.format, key.apiVersion)
	c.enc.entries = append(c.enc.entries, encoding{key: key, data: data})
	return data
}

// wants reports whether c can concern w: a watch in one namespace never
// sees changes in another (an object's namespace is immutable), so they are
// not queued for it at all. Label and field selectors are left to the
// watch, which also sends transitions out of its selector.
func (w *watcher) wants(c *change) bool {
	return w.info.namespace == "" || c.obj == nil || c.obj.meta == nil || c.obj.meta.Namespace == w.info.namespace
}
