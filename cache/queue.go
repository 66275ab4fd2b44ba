package cache

import (
	"context"
	"errors"
	"sync"

	"github.com/kubecache/kubecache/meta"
)

// Queue is what an informer drains: a Store whose writes queue deltas, with
// Pop to hand them to a process function. DeltaFIFO (one entry per key,
// carrying all of that key's deltas) and FIFO (one entry per delta, in
// arrival order across keys) satisfy it; the informer chooses.
//
// Both share these semantics:
//
//   - An object is known if it has queued deltas, if its deltas are being
//     processed by Pop, or if the KnownObjects behind the queue (the
//     informer's Indexer) holds it — and in each case the newest of these
//     states is not a deletion.
//   - Delete queues a deletion only for a known object.
//   - Replace queues Replaced for every listed object, and a Deleted delta
//     with FinalStateUnknown set, carrying the last known state, for every
//     known object the list does not hold.
//   - Resync queues Sync, with the state from KnownObjects, for every object
//     KnownObjects holds that has no queued deltas (for the object being
//     processed, with the state it is processed with, so a Sync never goes
//     back in time). Without KnownObjects it queues nothing.
//   - Read as a Store (List, ListKeys, Get, GetByKey), a queue gives the
//     newest known state of each known object; Len and QueuedKeys say what
//     is waiting.
//   - HasSynced turns true once everything queued by the first Replace (and
//     before it) has been processed.
//   - Pop calls run one at a time: a Pop waits for the previous one's
//     process function to return, so a key is never processed twice at
//     once and deltas are processed in order.
//   - After Close, Pop and every write fail with ErrClosed; queued deltas
//     are dropped.
type Queue[T meta.Object] interface {
	Store[T]
	// Pop waits for a queued entry, removes it and calls process with its
	// key and deltas (a slice valid only during the call; see
	// PopProcessFunc), returning process's error. If that error is (or
	// wraps) a *RequeueError, the deltas are queued again. Pop returns
	// ErrClosed once the queue is closed and ctx.Err() once ctx is done,
	// whichever ends its wait.
	Pop(ctx context.Context, process PopProcessFunc[T]) error
	// Resync queues a Sync delta for each known object not already queued.
	Resync() error
	// HasSynced reports whether everything queued by the first Replace has
	// been popped and processed.
	HasSynced() bool
	// Len returns the number of queued entries: keys for a DeltaFIFO,
	// deltas for a FIFO.
	Len() int
	// Close ends the queue and wakes a waiting Pop. It is idempotent.
	Close()
}

// PopProcessFunc processes the deltas of one key, oldest first. It runs
// without the queue's lock held, so it may take its time; the queue's
// writers are not blocked meanwhile.
//
// The slice is valid only until the function returns: a FIFO hands every
// Pop the same one-element slice, so that popping allocates nothing, and
// clears it afterwards. Copy the slice (slices.Clone) to keep it; the Delta
// values and the objects in them may be kept without copying.
type PopProcessFunc[T meta.Object] func(key string, deltas Deltas[T]) error

// KnownObjects is the store behind a queue: what its consumer has already
// processed. *Indexer satisfies it. The queue reads it under its own lock,
// so KnownObjects must never call back into the queue.
type KnownObjects[T meta.Object] interface {
	ListKeys() []string
	GetByKey(key string) (T, bool)
}

// QueueOptions configures NewDeltaFIFO and NewFIFO.
type QueueOptions[T meta.Object] struct {
	// KeyFunc keys objects; nil means MetaNamespaceKeyFunc.
	KeyFunc KeyFunc[T]
	// KnownObjects is the store the popped deltas are applied to, if any.
	// Without it, Replace cannot find objects deleted while nothing was
	// queued for them, and Resync queues nothing.
	KnownObjects KnownObjects[T]
}

// ErrClosed is returned by Pop and by writes to a closed queue.
var ErrClosed = errors.New("queue closed")

// RequeueError, returned (possibly wrapped) by a process function, makes
// Pop queue the deltas again: a DeltaFIFO puts them before any deltas the
// key received meanwhile; a FIFO puts the entry back at the head. Err says
// why; it may be nil.
type RequeueError struct {
	Err error
}

// Requeue returns a *RequeueError wrapping err.
func Requeue(err error) error { return &RequeueError{Err: err} }

func (e *RequeueError) Error() string {
	if e.Err == nil {
		return "requeue"
	}
	return "requeue: " + e.Err.Error()
}

func (e *RequeueError) Unwrap() error { return e.Err }

// popGate lets one Pop at a time wait for work, and wakes it.
type popGate struct {
	// slot holds a token while a Pop runs.
	slot chan struct{}
	// wake holds a token when something was queued since the waiting Pop
	// last looked.
	wake chan struct{}
	// closed is closed by Close.
	closed    chan struct{}
	closeOnce sync.Once
}

func newPopGate() popGate {
	return popGate{
		slot:   make(chan struct{}, 1),
		wake:   make(chan struct{}, 1),
		closed: make(chan struct{}),
	}
}

// acquire waits for this Pop's turn.
func (g *popGate) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case g.slot <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-g.closed:
		return ErrClosed
	}
}

// release ends this Pop's turn.
func (g *popGate) release() { <-g.slot }

// notify wakes the waiting Pop, if any; it never blocks.
func (g *popGate) notify() {
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// wait returns when something may have been queued, or with ErrClosed or
// ctx.Err().
func (g *popGate) wait(ctx context.Context) error {
	select {
	case <-g.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-g.closed:
		return ErrClosed
	}
}

func (g *popGate) close() { g.closeOnce.Do(func() { close(g.closed) }) }

func (g *popGate) isClosed() bool {
	select {
	case <-g.closed:
		return true
	default:
		return false
	}
}

// inflight is the entry a Pop is processing: its deltas are neither queued
// nor (necessarily) applied to KnownObjects yet, so the queue must still
// count the object as known, in its newest state.
type inflight[T meta.Object] struct {
	key    string
	newest Delta[T]
	active bool
}

// is reports whether key is being processed.
func (in *inflight[T]) is(key string) bool { return in.active && in.key == key }

// queueKey computes keys for a queue and knows whether they are standard.
type queueKey[T meta.Object] struct {
	keyFunc  KeyFunc[T]
	metaKeys bool
}

func newQueueKey[T meta.Object](keyFunc KeyFunc[T]) queueKey[T] {
	if keyFunc == nil {
		return queueKey[T]{keyFunc: MetaNamespaceKeyFunc[T], metaKeys: true}
	}
	return queueKey[T]{keyFunc: keyFunc}
}

// keysOf computes the key of each item, failing on the first without one.
func (k queueKey[T]) keysOf(items []T) ([]string, error) {
	keys := make([]string, len(items))
	for i, obj := range items {
		key, err := k.keyFunc(obj)
		if err != nil {
			return nil, err
		}
		keys[i] = key
	}
	return keys, nil
}

// queueReplacement is the Replacement of both queues: it collects the
// listed objects and hands them to the queue's replace at Commit.
type queueReplacement[T meta.Object] struct {
	key     queueKey[T]
	current func(key string) (T, bool)
	replace func(keys []string, items []T, resourceVersion string) error
	keys    []string
	items   []T
	done    bool
	probe   T
	// hasProbe is set once probe is allocated.
	hasProbe bool
}

func (r *queueReplacement[T]) Lookup(namespace, name string) (T, bool) {
	if r.done {
		var zero T
		return zero, false
	}
	if r.key.metaKeys {
		return r.current(MetaNamespaceKey(namespace, name))
	}
	return lookupWithKeyFunc(r.key.keyFunc, &r.probe, &r.hasProbe, namespace, name, r.current)
}

func (r *queueReplacement[T]) Add(obj T) error {
	if r.done {
		return ErrReplacementDone
	}
	key, err := r.key.keyFunc(obj)
	if err != nil {
		return err
	}
	r.keys = append(r.keys, key)
	r.items = append(r.items, obj)
	return nil
}

func (r *queueReplacement[T]) Commit(resourceVersion string) error {
	if r.done {
		return ErrReplacementDone
	}
	r.done = true
	keys, items := r.keys, r.items
	r.keys, r.items = nil, nil
	return r.replace(keys, items, resourceVersion)
}

func (r *queueReplacement[T]) Abort() {
	r.done = true
	r.keys, r.items = nil, nil
}
