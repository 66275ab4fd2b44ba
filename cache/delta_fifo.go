package cache

import (
	"context"
	"errors"
	"sync"

	"github.com/kubecache/kubecache/meta"
)

// DeltaFIFO is a queue of keys, each carrying every delta its object
// received since it was last popped. Keys pop in the order they first
// arrived, with all their deltas at once, so a consumer that falls behind
// handles each object once with its whole history rather than once per
// change. Two consecutive deletions of one key collapse into one.
//
// It is the queue between a Reflector and an informer's Indexer: the
// Reflector writes into it as into any Store, and the informer pops deltas,
// applies them to the Indexer (its KnownObjects) and calls its handlers.
// The Queue documentation gives the semantics it shares with FIFO.
//
// A DeltaFIFO is safe for concurrent use.
type DeltaFIFO[T meta.Object] struct {
	key   queueKey[T]
	known KnownObjects[T]
	gate  popGate

	// mu guards the fields below.
	mu sync.Mutex
	// items holds the deltas of each queued key, oldest first.
	items map[string]deltaEntry[T]
	// queue holds each queued key once, in order of first arrival.
	queue []string
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

// deltaEntry is one queued key's deltas.
type deltaEntry[T meta.Object] struct {
	deltas Deltas[T]
	// initial is set for entries queued by (or before) the first Replace.
	initial bool
}

// NewDeltaFIFO returns an empty DeltaFIFO.
func NewDeltaFIFO[T meta.Object](opts QueueOptions[T]) *DeltaFIFO[T] {
	return &DeltaFIFO[T]{
		key:   newQueueKey(opts.KeyFunc),
		known: opts.KnownObjects,
		gate:  newPopGate(),
		items: make(map[string]deltaEntry[T]),
	}
}

// Add queues an Added delta for obj.
func (f *DeltaFIFO[T]) Add(obj T) error { return f.write(Added, obj) }

// Update queues an Updated delta for obj.
func (f *DeltaFIFO[T]) Update(obj T) error { return f.write(Updated, obj) }

// Delete queues a Deleted delta for obj if the object is queued or known;
// otherwise it does nothing.
func (f *DeltaFIFO[T]) Delete(obj T) error { return f.write(Deleted, obj) }

func (f *DeltaFIFO[T]) write(t DeltaType, obj T) error {
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
		if _, queued := f.items[key]; !queued {
			if _, known := f.currentLocked(key); !known {
				return nil
			}
		}
	}
	f.queueLocked(key, Delta[T]{Type: t, Object: obj})
	return nil
}

// queueLocked appends d to key's deltas, queueing the key if it is new.
func (f *DeltaFIFO[T]) queueLocked(key string, d Delta[T]) {
	e, queued := f.items[key]
	e.deltas = appendDelta(e.deltas, d)
	f.items[key] = e
	if !queued {
		f.queue = append(f.queue, key)
		f.gate.notify()
	}
}

// currentLocked returns the newest state of key the queue knows: queued,
// being processed, or in KnownObjects; false if that state is a deletion or
// there is none.
func (f *DeltaFIFO[T]) currentLocked(key string) (T, bool) {
	var zero T
	if e, ok := f.items[key]; ok {
		d, _ := e.deltas.Newest()
		if d.Type == Deleted {
			return zero, false
		}
		return d.Object, true
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
func (f *DeltaFIFO[T]) List() []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]T, 0, len(f.queue))
	f.eachKnownLocked(func(_ string, obj T) { out = append(out, obj) })
	return out
}

// ListKeys returns the keys of the objects List returns.
func (f *DeltaFIFO[T]) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.queue))
	f.eachKnownLocked(func(key string, _ T) { out = append(out, key) })
	return out
}

// eachKnownLocked calls fn with the key and newest state of every known
// object: queued keys in queue order, then the key in flight, then the
// rest of KnownObjects.
func (f *DeltaFIFO[T]) eachKnownLocked(fn func(key string, obj T)) {
	for _, key := range f.queue {
		if obj, ok := f.currentLocked(key); ok {
			fn(key, obj)
		}
	}
	in := f.inflight
	if _, queued := f.items[in.key]; in.active && !queued {
		if obj, ok := f.currentLocked(in.key); ok {
			fn(in.key, obj)
		}
	}
	if f.known == nil {
		return
	}
	for _, key := range f.known.ListKeys() {
		if _, queued := f.items[key]; queued || f.inflight.is(key) {
			continue
		}
		if obj, ok := f.known.GetByKey(key); ok {
			fn(key, obj)
		}
	}
}

// QueuedKeys returns the queued keys, in the order Pop will take them.
func (f *DeltaFIFO[T]) QueuedKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.queue...)
}

// Len returns the number of queued keys.
func (f *DeltaFIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// Get returns the newest known state of obj's key.
func (f *DeltaFIFO[T]) Get(obj T) (item T, exists bool, err error) {
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
func (f *DeltaFIFO[T]) GetByKey(key string) (item T, exists bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.currentLocked(key)
}

// Deltas returns a copy of the deltas queued for key.
func (f *DeltaFIFO[T]) Deltas(key string) (Deltas[T], bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.items[key]
	if !ok {
		return nil, false
	}
	return append(Deltas[T](nil), e.deltas...), true
}

// Replace queues Replaced for every item and Deleted, FinalStateUnknown,
// for every known object missing from items. It fails, queueing nothing, if
// an item has no key.
func (f *DeltaFIFO[T]) Replace(items []T, resourceVersion string) error {
	keys, err := f.key.keysOf(items)
	if err != nil {
		return err
	}
	return f.replace(keys, items, resourceVersion)
}

// BeginReplace starts a Replacement that calls Replace at Commit.
func (f *DeltaFIFO[T]) BeginReplace() Replacement[T] {
	return &queueReplacement[T]{key: f.key, current: f.GetByKey, replace: f.replace}
}

func (f *DeltaFIFO[T]) replace(keys []string, items []T, resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gate.isClosed() {
		return ErrClosed
	}
	listed := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		listed[k] = struct{}{}
	}
	// Known objects the list lacks, in three places: queued keys (before
	// the listed ones are queued, so a key is judged by what it had), the
	// entry in flight, and KnownObjects.
	for _, key := range f.queue {
		if _, ok := listed[key]; ok {
			continue
		}
		d, _ := f.items[key].deltas.Newest()
		if d.Type != Deleted {
			f.queueLocked(key, Delta[T]{Type: Deleted, Object: d.Object, FinalStateUnknown: true})
		}
	}
	if in := f.inflight; in.active && in.newest.Type != Deleted {
		_, ok := listed[in.key]
		if _, queued := f.items[in.key]; !ok && !queued {
			f.queueLocked(in.key, Delta[T]{Type: Deleted, Object: in.newest.Object, FinalStateUnknown: true})
		}
	}
	if f.known != nil {
		for _, key := range f.known.ListKeys() {
			if _, ok := listed[key]; ok {
				continue
			}
			if _, queued := f.items[key]; queued || f.inflight.is(key) {
				continue
			}
			if obj, ok := f.known.GetByKey(key); ok {
				f.queueLocked(key, Delta[T]{Type: Deleted, Object: obj, FinalStateUnknown: true})
			}
		}
	}
	for i, key := range keys {
		f.queueLocked(key, Delta[T]{Type: Replaced, Object: items[i]})
	}

	if !f.replaced {
		f.replaced = true
		for _, key := range f.queue {
			e := f.items[key]
			e.initial = true
			f.items[key] = e
		}
		f.initialPending = len(f.queue)
	}
	f.resourceVersion = resourceVersion
	return nil
}

// ResourceVersion returns the resourceVersion passed to the last Replace.
func (f *DeltaFIFO[T]) ResourceVersion() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.resourceVersion
}

// Resync queues Sync for every object in KnownObjects with no queued
// deltas. For the object being processed, if any, the state it is being
// processed with is used, so a resync never goes back to an older state.
func (f *DeltaFIFO[T]) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gate.isClosed() {
		return ErrClosed
	}
	if f.known == nil {
		return nil
	}
	for _, key := range f.known.ListKeys() {
		if _, queued := f.items[key]; queued {
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
func (f *DeltaFIFO[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.replaced && f.initialPending == 0
}

// Close ends the queue: a waiting Pop returns ErrClosed, and so do later
// Pops and writes.
func (f *DeltaFIFO[T]) Close() { f.gate.close() }

// Pop removes the key that has been queued longest and calls process with
// all its deltas. See Queue.Pop.
func (f *DeltaFIFO[T]) Pop(ctx context.Context, process PopProcessFunc[T]) (err error) {
	if process == nil {
		return errors.New("pop: nil process function")
	}
	if err := f.gate.acquire(ctx); err != nil {
		return err
	}
	defer f.gate.release()

	f.mu.Lock()
	for len(f.queue) == 0 && !f.gate.isClosed() {
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
	key := f.queue[0]
	f.queue[0] = ""
	f.queue = f.queue[1:]
	e := f.items[key]
	delete(f.items, key)
	newest, _ := e.deltas.Newest()
	f.inflight = inflight[T]{key: key, newest: newest, active: true}
	f.mu.Unlock()

	defer f.endPop(key, &e, &err)
	return process(key, e.deltas)
}

// endPop ends the Pop of key's entry e, whose process function returned
// *err (or panicked, leaving *err nil): it either puts e back or counts it
// as processed.
func (f *DeltaFIFO[T]) endPop(key string, e *deltaEntry[T], err *error) {
	requeue := false
	if *err != nil {
		_, requeue = errors.AsType[*RequeueError](*err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inflight = inflight[T]{}
	if requeue {
		f.requeueLocked(key, *e)
	} else if e.initial {
		f.initialPending--
	}
}

// requeueLocked puts a popped entry back, before any deltas the key received
// since it was popped.
func (f *DeltaFIFO[T]) requeueLocked(key string, e deltaEntry[T]) {
	if f.gate.isClosed() {
		return
	}
	later, queued := f.items[key]
	if !queued {
		f.items[key] = e
		f.queue = append(f.queue, key)
		f.gate.notify()
		return
	}
	merged := e.deltas
	for _, d := range later.deltas {
		merged = appendDelta(merged, d)
	}
	if e.initial && later.initial {
		f.initialPending--
	}
	f.items[key] = deltaEntry[T]{deltas: merged, initial: e.initial || later.initial}
}
