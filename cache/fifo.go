package cache

import (
	"context"

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
// Replace queues the listed objects first, then the deletions.
//
// A FIFO is safe for concurrent use.
type FIFO[T meta.Object] struct {
	queueCore[T]
	// popped backs the one-delta slice Pop hands its process function, so
	// that popping allocates nothing. Only the Pop holding the gate's slot
	// uses it; it is cleared when process returns.
	popped [1]Delta[T]

	// The fields below are guarded by queueCore.mu.

	// entries[head:] are the queued deltas, oldest first; entries[:head]
	// have been popped and are zero.
	entries []fifoEntry[T]
	head    int
	// pending counts, for each key with queued entries, how many it has
	// and which is the newest.
	pending map[string]fifoPending[T]
	// pendingPeak is the most keys pending has held since it was made.
	pendingPeak int
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
	f := &FIFO[T]{pending: make(map[string]fifoPending[T])}
	f.queueCore = newQueueCore(opts, f)
	return f
}

// The methods below make a FIFO its core's record of queued deltas
// (pendingDeltas). They expect mu held.

func (f *FIFO[T]) newestLocked(key string) (Delta[T], bool) {
	p, ok := f.pending[key]
	return p.newest, ok
}

// eachKeyLocked calls fn once for each key with queued entries, in the
// order of each key's oldest entry.
func (f *FIFO[T]) eachKeyLocked(fn func(key string)) {
	seen := make(map[string]struct{}, len(f.pending))
	for _, e := range f.entries[f.head:] {
		if _, dup := seen[e.key]; dup {
			continue
		}
		seen[e.key] = struct{}{}
		fn(e.key)
	}
}

func (f *FIFO[T]) keysLocked() int    { return len(f.pending) }
func (f *FIFO[T]) entriesLocked() int { return len(f.entries) - f.head }

// pushLocked appends one entry.
func (f *FIFO[T]) pushLocked(key string, d Delta[T]) {
	f.entries = append(f.entries, fifoEntry[T]{key: key, delta: d})
	p := f.pending[key]
	p.count++
	p.newest = d
	f.pending[key] = p
	f.pendingPeak = max(f.pendingPeak, len(f.pending))
	f.gate.notify()
}

func (f *FIFO[T]) markInitialLocked() int {
	for i := f.head; i < len(f.entries); i++ {
		f.entries[i].initial = true
	}
	return len(f.entries) - f.head
}

// shrinkAbove is the size past which a drained FIFO lets its entries slice
// and pending map go rather than keep their room.
const shrinkAbove = 1024

// Pop removes the oldest entry and calls process with its key and its one
// delta. See Queue.Pop. The slice process receives is the FIFO's own,
// reused by the next Pop: it is valid only until process returns (the
// delta and its object may be kept; the slice may not).
func (f *FIFO[T]) Pop(ctx context.Context, process PopProcessFunc[T]) (err error) {
	if err := f.beginPop(ctx, process); err != nil {
		return err
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

	defer func() {
		clear(f.popped[:])
		f.endPop(err, e.initial, func() { f.requeueLocked(e) })
	}()
	f.popped[0] = e.delta
	return process(e.key, f.popped[:])
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
