package cache

import (
	"context"

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
// The Queue documentation gives the semantics it shares with FIFO. Replace
// queues the deletions first, then the listed objects.
//
// A DeltaFIFO is safe for concurrent use.
type DeltaFIFO[T meta.Object] struct {
	queueCore[T]

	// The fields below are guarded by queueCore.mu.

	// items holds the deltas of each queued key, oldest first.
	items map[string]deltaEntry[T]
	// queue holds each queued key once, in order of first arrival.
	queue []string
}

// deltaEntry is one queued key's deltas.
type deltaEntry[T meta.Object] struct {
	deltas Deltas[T]
	// initial is set for entries queued by (or before) the first Replace.
	initial bool
}

// NewDeltaFIFO returns an empty DeltaFIFO.
func NewDeltaFIFO[T meta.Object](opts QueueOptions[T]) *DeltaFIFO[T] {
	f := &DeltaFIFO[T]{items: make(map[string]deltaEntry[T])}
	f.queueCore = newQueueCore(opts, f)
	f.collapseDeletes = true
	f.deletionsFirst = true
	return f
}

// The methods below make a DeltaFIFO its core's record of queued deltas
// (pendingDeltas). They expect mu held.

func (f *DeltaFIFO[T]) newestLocked(key string) (Delta[T], bool) {
	e, ok := f.items[key]
	if !ok {
		return Delta[T]{}, false
	}
	d, _ := e.deltas.Newest()
	return d, true
}

func (f *DeltaFIFO[T]) eachKeyLocked(fn func(key string)) {
	for _, key := range f.queue {
		fn(key)
	}
}

func (f *DeltaFIFO[T]) keysLocked() int    { return len(f.queue) }
func (f *DeltaFIFO[T]) entriesLocked() int { return len(f.queue) }

// pushLocked appends d to key's deltas, queueing the key if it is new.
func (f *DeltaFIFO[T]) pushLocked(key string, d Delta[T]) {
	e, queued := f.items[key]
	e.deltas = appendDelta(e.deltas, d)
	f.items[key] = e
	if !queued {
		f.queue = append(f.queue, key)
		f.gate.notify()
	}
}

func (f *DeltaFIFO[T]) markInitialLocked() int {
	for _, key := range f.queue {
		e := f.items[key]
		e.initial = true
		f.items[key] = e
	}
	return len(f.queue)
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

// Pop removes the key that has been queued longest and calls process with
// all its deltas. See Queue.Pop.
func (f *DeltaFIFO[T]) Pop(ctx context.Context, process PopProcessFunc[T]) (err error) {
	if err := f.beginPop(ctx, process); err != nil {
		return err
	}
	key := f.queue[0]
	f.queue[0] = ""
	f.queue = f.queue[1:]
	e := f.items[key]
	delete(f.items, key)
	newest, _ := e.deltas.Newest()
	f.inflight = inflight[T]{key: key, newest: newest, active: true}
	f.mu.Unlock()

	defer func() { f.endPop(err, e.initial, func() { f.requeueLocked(key, e) }) }()
	return process(key, e.deltas)
}

// requeueLocked puts a popped entry back, before any deltas the key received
// since it was popped.
func (f *DeltaFIFO[T]) requeueLocked(key string, e deltaEntry[T]) {
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
