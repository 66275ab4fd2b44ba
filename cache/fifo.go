package cache

import (
	"context"
	"errors"
	"sync"

	"github.com/kubecache/kubecache/meta"
)

// FIFO is a queue of deltas in the order they arrived, across keys: each
// delta is its own entry, popped alone (Pop hands process a single delta).
// Where a DeltaFIFO lets a busy key's changes pile up under the key's first
// position, a FIFO delivers every change in global arrival order, at the
// cost of processing each change separately.
//
// It shares the semantics described under Queue with DeltaFIFO: what is
// known, what Replace queues, Resync, HasSynced and Close. A deletion of a
// key whose newest queued delta is already a deletion queues nothing.
//
// A FIFO is safe for concurrent use.
type FIFO[T meta.Object] struct {
	key   queueKey[T]
	known KnownObjects[T]
	gate  popGate
	// popped backs the one-delta slice Pop hands its process function, so
	// that popping allocates nothing. Only the Pop holding the gate's slot
	// uses it; it is cleared when process returns.
	popped [1]Delta[T]

	// mu guards the fields below.
	mu sync.Mutex
	// entries[head:] are the queued deltas, oldest first; entries[:head]
	// have been popped and are zero.
	entries []fifoEntry[T]
	head    int
	// pending counts, for each key with queued entries, how many it has
	// and which is the newest.
	pending map[string]fifoPending[T]
	// pendingPeak is the most keys pending has held since it was made.
	pendingPeak int
	// inflight is the entry being processed by Pop.
	inflight inflight[T]
	// replaced is set by the first Replace.
	replaced bool
	// initialPending counts the entries, marked initial, that were queued
	// when the first Replace happened and are not processed yet.
	initialPending int
	// resourceVersion is the one passed to the last Replace.
	resourceVersion string
}

// fifoEntry is one queued delta.
type fifoEntry[T meta.Object] struct {
	key   string
	delta Delta[T]
	// initial is set for entries queued by (or before) the first Replace.
	initial bool
}

// fifoPending summarizes one key's queued entries.
type fifoPending[T meta.Object] struct {
	count  int
	newest Delta[T]
}

// NewFIFO returns an empty FIFO.
func NewFIFO[T meta.Object](opts QueueOptions[T]) *FIFO[T] {
	return &FIFO[T]{
		key:     newQueueKey(opts.KeyFunc),
		known:   opts.KnownObjects,
		gate:    newPopGate(),
		pending: make(map[string]fifoPending[T]),
	}
}

// Add queues an Added delta for obj.
func (f *FIFO[T]) Add(obj T) error { return f.write(Added, obj) }

// Update queues an Updated delta for obj.
func (f *FIFO[T]) Update(obj T) error { return f.write(Updated, obj) }

// Delete queues a Deleted delta for obj if the object is known (and not
// already queued for deletion); otherwise it does nothing.
func (f *FIFO[T]) Delete(obj T) error { return f.write(Deleted, obj) }

func (f *FIFO[T]) write(t DeltaType, obj T) error {
	key, err := f.key.keyFunc(obj)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gate.isClosed() {
		return ErrClosed
	}
	if t == Deleted {
		if _, known := f.currentLocked(key); !known {
			return nil
		}
	}
	f.queueLocked(key, Delta[T]{Type: t, Object: obj})
	return nil
}

// queueLocked appends one entry.
func (f *FIFO[T]) queueLocked(key string, d Delta[T]) {
	f.entries = append(f.entries, fifoEntry[T]{key: key, delta: d})
	p := f.pending[key]
	p.count++
	p.newest = d
	f.pending[key] = p
	f.pendingPeak = max(f.pendingPeak, len(f.pending))
	f.gate.notify()
}

// shrinkAbove is the size past which a drained FIFO lets its entries slice
// and pending map go rather than keep their room.
const shrinkAbove = 1024

// currentLocked returns the newest state of key the queue knows: queued,
// being processed, or in KnownObjects; false if that state is a deletion or
// there is none.
func (f *FIFO[T]) currentLocked(key string) (T, bool) {
	var zero T
	if p, ok := f.pending[key]; ok {
		if p.newest.Type == Deleted {
			return zero, false
		}
		return p.newest.Object, true
	}
	if f.inflight.is(key) {
		if f.inflight.newest.Type == Deleted {
			return zero, false
		}
		return f.inflight.newest.Object, true
	}
	if f.known != nil {
		return f.known.GetByKey(key)
	}
	return zero, false
}

// List returns the newest known state of every object the queue knows:
// queued, being processed, or in KnownObjects. Objects whose newest state
// is a deletion are left out.
func (f *FIFO[T]) List() []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]T, 0, len(f.pending))
	f.eachKnownLocked(func(_ string, obj T) { out = append(out, obj) })
	return out
}

// ListKeys returns the keys of the objects List returns.
func (f *FIFO[T]) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.pending))
	f.eachKnownLocked(func(key string, _ T) { out = append(out, key) })
	return out
}

// eachKnownLocked calls fn with the key and newest state of every known
// object: keys with queued entries in the order of their oldest entry,
// then the key in flight, then the rest of KnownObjects.
func (f *FIFO[T]) eachKnownLocked(fn func(key string, obj T)) {
	f.eachQueuedKeyLocked(func(key string) {
		if obj, ok := f.currentLocked(key); ok {
			fn(key, obj)
		}
	})
	in := f.inflight
	if _, queued := f.pending[in.key]; in.active && !queued {
		if obj, ok := f.currentLocked(in.key); ok {
			fn(in.key, obj)
		}
	}
	if f.known == nil {
		return
	}
	for _, key := range f.known.ListKeys() {
		if _, queued := f.pending[key]; queued || f.inflight.is(key) {
			continue
		}
		if obj, ok := f.known.GetByKey(key); ok {
			fn(key, obj)
		}
	}
}

// eachQueuedKeyLocked calls fn once for each key with queued entries, in
// the order of each key's oldest entry.
func (f *FIFO[T]) eachQueuedKeyLocked(fn func(key string)) {
	seen := make(map[string]struct{}, len(f.pending))
	for _, e := range f.entries[f.head:] {
		if _, dup := seen[e.key]; dup {
			continue
		}
		seen[e.key] = struct{}{}
		fn(e.key)
	}
}

// QueuedKeys returns the keys with queued entries, in the order of each
// key's oldest entry.
func (f *FIFO[T]) QueuedKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.pending))
	f.eachQueuedKeyLocked(func(key string) { out = append(out, key) })
	return out
}

// Len returns the number of queued entries (deltas, not keys).
func (f *FIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.entries) - f.head
}

// Get returns the newest known state of obj's key.
func (f *FIFO[T]) Get(obj T) (item T, exists bool, err error) {
	key, err := f.key.keyFunc(obj)
	if err != nil {
		var zero T
		return zero, false, err
	}
	item, exists = f.GetByKey(key)
	return item, exists, nil
}

// GetByKey returns the newest known state of key: queued, being
// processed, or in KnownObjects; false if there is none or it is a
// deletion.
func (f *FIFO[T]) GetByKey(key string) (item T, exists bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.currentLocked(key)
}

// Replace queues Replaced for every item, in order, then Deleted,
// FinalStateUnknown, for every known object missing from items. It fails,
// queueing nothing, if an item has no key.
func (f *FIFO[T]) Replace(items []T, resourceVersion string) error {
	keys, err := f.key.keysOf(items)
	if err != nil {
		return err
	}
	return f.replace(keys, items, resourceVersion)
}

// BeginReplace starts a Replacement that calls Replace at Commit.
func (f *FIFO[T]) BeginReplace() Replacement[T] {
	return &queueReplacement[T]{key: f.key, current: f.GetByKey, replace: f.replace}
}

func (f *FIFO[T]) replace(keys []string, items []T, resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gate.isClosed() {
		return ErrClosed
	}
	listed := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		listed[k] = struct{}{}
	}
	// Collect the known objects the list lacks before queueing anything,
	// so each is judged by the state it had.
	type gone struct {
		key string
		obj T
	}
	var missing []gone
	consider := func(key string) {
		if _, ok := listed[key]; ok {
			return
		}
		if obj, ok := f.currentLocked(key); ok {
			missing = append(missing, gone{key, obj})
		}
	}
	f.eachQueuedKeyLocked(consider)
	if in := f.inflight; in.active {
		if _, queued := f.pending[in.key]; !queued {
			consider(in.key)
		}
	}
	if f.known != nil {
		for _, key := range f.known.ListKeys() {
			if _, queued := f.pending[key]; queued || f.inflight.is(key) {
				continue
			}
			consider(key)
		}
	}

	for i, key := range keys {
		f.queueLocked(key, Delta[T]{Type: Replaced, Object: items[i]})
	}
	for _, g := range missing {
		f.queueLocked(g.key, Delta[T]{Type: Deleted, Object: g.obj, FinalStateUnknown: true})
	}

	if !f.replaced {
		f.replaced = true
		for i := f.head; i < len(f.entries); i++ {
			f.entries[i].initial = true
		}
		f.initialPending = len(f.entries) - f.head
	}
	f.resourceVersion = resourceVersion
	return nil
}

// ResourceVersion returns the resourceVersion passed to the last Replace.
func (f *FIFO[T]) ResourceVersion() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.resourceVersion
}

// Resync queues Sync for every object in KnownObjects with no queued
// entries. For the object being processed, if any, the state it is being
// processed with is used, so a resync never goes back to an older state.
func (f *FIFO[T]) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gate.isClosed() {
		return ErrClosed
	}
	if f.known == nil {
		return nil
	}
	for _, key := range f.known.ListKeys() {
		if _, queued := f.pending[key]; queued {
			continue
		}
		if obj, ok := f.currentLocked(key); ok {
			f.queueLocked(key, Delta[T]{Type: Sync, Object: obj})
		}
	}
	return nil
}

// HasSynced reports whether the first Replace has happened and every entry
// queued by then has been processed.
func (f *FIFO[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.replaced && f.initialPending == 0
}

// Close ends the queue: a waiting Pop returns ErrClosed, and so do later
// Pops and writes.
func (f *FIFO[T]) Close() { f.gate.close() }

// Pop removes the oldest entry and calls process with its key and its one
// delta. See Queue.Pop. The slice process receives is the FIFO's own,
// reused by the next Pop: it is valid only until process returns (the
// delta and its object may be kept; the slice may not).
func (f *FIFO[T]) Pop(ctx context.Context, process PopProcessFunc[T]) (err error) {
	if process == nil {
		return errors.New("pop: nil process function")
	}
	if err := f.gate.acquire(ctx); err != nil {
		return err
	}
	defer f.gate.release()

	f.mu.Lock()
	for f.head == len(f.entries) && !f.gate.isClosed() {
		f.mu.Unlock()
		if err := f.gate.wait(ctx); err != nil {
			return err
		}
		f.mu.Lock()
	}
	if f.gate.isClosed() {
		f.mu.Unlock()
		return ErrClosed
	}
	e := f.entries[f.head]
	f.entries[f.head] = fifoEntry[T]{}
	f.head++
	f.compactLocked()
	if p := f.pending[e.key]; p.count == 1 {
		delete(f.pending, e.key)
		if len(f.pending) == 0 && f.pendingPeak > shrinkAbove {
			// A Go map never shrinks: replace the one a large list grew.
			f.pending = make(map[string]fifoPending[T])
			f.pendingPeak = 0
		}
	} else {
		p.count--
		f.pending[e.key] = p
	}
	f.inflight = inflight[T]{key: e.key, newest: e.delta, active: true}
	f.mu.Unlock()

	defer f.endPop(&e, &err)
	f.popped[0] = e.delta
	return process(e.key, f.popped[:])
}

// endPop ends the Pop of e, whose process function returned *err (or
// panicked, leaving *err nil): it drops the popped delta from the reused
// slice and either puts e back or counts it as processed.
func (f *FIFO[T]) endPop(e *fifoEntry[T], err *error) {
	clear(f.popped[:])
	requeue := false
	if *err != nil {
		_, requeue = errors.AsType[*RequeueError](*err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inflight = inflight[T]{}
	if requeue {
		f.requeueLocked(*e)
	} else if e.initial {
		f.initialPending--
	}
}

// compactLocked reclaims the popped prefix of entries once it is most of
// the slice, so a long-lived queue does not grow without bound.
func (f *FIFO[T]) compactLocked() {
	switch {
	case f.head == len(f.entries):
		// Drained: give back the room of a large list once it is
		// processed, instead of holding it for the queue's life.
		if cap(f.entries) > shrinkAbove {
			f.entries = nil
		} else {
			f.entries = f.entries[:0]
		}
		f.head = 0
	case f.head >= 1024 && f.head*2 >= len(f.entries):
		n := copy(f.entries, f.entries[f.head:])
		clear(f.entries[n:])
		f.entries = f.entries[:n]
		f.head = 0
	}
}

// requeueLocked puts a popped entry back at the head of the queue, before
// any later delta of the same key.
func (f *FIFO[T]) requeueLocked(e fifoEntry[T]) {
	if f.gate.isClosed() {
		return
	}
	if f.head > 0 {
		f.head--
		f.entries[f.head] = e
	} else {
		f.entries = append(f.entries, fifoEntry[T]{})
		copy(f.entries[1:], f.entries)
		f.entries[0] = e
	}
	p, queued := f.pending[e.key]
	if !queued {
		p.newest = e.delta
	}
	p.count++
	f.pending[e.key] = p
	f.gate.notify()
}
