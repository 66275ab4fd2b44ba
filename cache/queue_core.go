package cache

import (
	"context"
	"errors"
	"sync"

	"github.com/kubecache/kubecache/meta"
)

// queueCore is what FIFO and DeltaFIFO share: the lock, the close gate,
// what counts as known, the store reads, Replace's and Resync's shape, and
// the initial-sync bookkeeping behind HasSynced. Each queue embeds it and
// brings its own record of the queued deltas (pending): a FIFO keeps one
// entry per delta, a DeltaFIFO one per key. The queue-specific parts are
// how Pop takes an entry and how a requeued entry goes back.
type queueCore[T meta.Object] struct {
	key   queueKey[T]
	known KnownObjects[T]
	gate  popGate
	// queued is the queue's own record of its queued deltas (the queue
	// itself); the core uses it only with mu held.
	queued pendingDeltas[T]
	// collapseDeletes is set when a Delete of a key whose newest queued
	// delta is already a deletion is queued (and collapses with it, see
	// appendDelta) rather than dropped.
	collapseDeletes bool
	// deletionsFirst is set when Replace queues the deletions of known
	// objects the list lacks before the listed objects rather than after.
	deletionsFirst bool

	// mu guards the fields below and the queue's record of queued deltas.
	mu sync.Mutex
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

// pendingDeltas is a queue's record of the deltas waiting to be popped.
// queueCore calls its methods with its mu held.
type pendingDeltas[T meta.Object] interface {
	// newestLocked returns key's newest queued delta; false if key has
	// nothing queued.
	newestLocked(key string) (Delta[T], bool)
	// eachKeyLocked calls fn once for each key with queued deltas, in the
	// order Pop will reach them.
	eachKeyLocked(fn func(key string))
	// keysLocked returns how many keys have queued deltas.
	keysLocked() int
	// entriesLocked returns how many entries are queued: what Len reports
	// and what Pop waits to be non-zero.
	entriesLocked() int
	// pushLocked queues d for key and wakes a waiting Pop.
	pushLocked(key string, d Delta[T])
	// markInitialLocked marks every queued entry as queued by the first
	// Replace and returns how many entries there are.
	markInitialLocked() int
}

func newQueueCore[T meta.Object](opts QueueOptions[T], queued pendingDeltas[T]) queueCore[T] {
	return queueCore[T]{
		key:    newQueueKey(opts.KeyFunc),
		known:  opts.KnownObjects,
		gate:   newPopGate(),
		queued: queued,
	}
}

// Add queues an Added delta for obj.
func (c *queueCore[T]) Add(obj T) error { return c.write(Added, obj) }

// Update queues an Updated delta for obj.
func (c *queueCore[T]) Update(obj T) error { return c.write(Updated, obj) }

// Delete queues a Deleted delta for obj if the object is known; otherwise
// it does nothing. When the key's newest queued delta is already a
// deletion, a DeltaFIFO collapses the two into one and a FIFO queues
// nothing.
func (c *queueCore[T]) Delete(obj T) error { return c.write(Deleted, obj) }

func (c *queueCore[T]) write(t DeltaType, obj T) error {
	key, err := c.key.keyFunc(obj)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gate.isClosed() {
		return ErrClosed
	}
	if t == Deleted {
		_, queued := c.queued.newestLocked(key)
		if _, known := c.currentLocked(key); !known && !(queued && c.collapseDeletes) {
			return nil
		}
	}
	c.queued.pushLocked(key, Delta[T]{Type: t, Object: obj})
	return nil
}

// queuedLocked reports whether key has queued deltas.
func (c *queueCore[T]) queuedLocked(key string) bool {
	_, queued := c.queued.newestLocked(key)
	return queued
}

// currentLocked returns the newest state of key the queue knows: queued,
// being processed, or in KnownObjects; false if that state is a deletion or
// there is none.
func (c *queueCore[T]) currentLocked(key string) (T, bool) {
	var zero T
	if d, ok := c.queued.newestLocked(key); ok {
		if d.Type == Deleted {
			return zero, false
		}
		return d.Object, true
	}
	if c.inflight.is(key) {
		if c.inflight.newest.Type == Deleted {
			return zero, false
		}
		return c.inflight.newest.Object, true
	}
	if c.known != nil {
		return c.known.GetByKey(key)
	}
	return zero, false
}

// List returns the newest known state of every object the queue knows:
// queued, being processed, or in KnownObjects. Objects whose newest state
// is a deletion are left out.
func (c *queueCore[T]) List() []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]T, 0, c.queued.keysLocked())
	c.eachKnownLocked(func(_ string, obj T) { out = append(out, obj) })
	return out
}

// ListKeys returns the keys of the objects List returns.
func (c *queueCore[T]) ListKeys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, c.queued.keysLocked())
	c.eachKnownLocked(func(key string, _ T) { out = append(out, key) })
	return out
}

// eachKnownKeyLocked calls fn with every key the queue may know: queued
// keys in pop order, then the key in flight, then the rest of
// KnownObjects. Each key comes once.
func (c *queueCore[T]) eachKnownKeyLocked(fn func(key string)) {
	c.queued.eachKeyLocked(fn)
	if in := c.inflight; in.active && !c.queuedLocked(in.key) {
		fn(in.key)
	}
	if c.known == nil {
		return
	}
	for _, key := range c.known.ListKeys() {
		if c.queuedLocked(key) || c.inflight.is(key) {
			continue
		}
		fn(key)
	}
}

// eachKnownLocked calls fn with the key and newest state of every known
// object, in the order of eachKnownKeyLocked.
func (c *queueCore[T]) eachKnownLocked(fn func(key string, obj T)) {
	c.eachKnownKeyLocked(func(key string) {
		if obj, ok := c.currentLocked(key); ok {
			fn(key, obj)
		}
	})
}

// QueuedKeys returns the keys with queued deltas, in the order Pop will
// reach them.
func (c *queueCore[T]) QueuedKeys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, c.queued.keysLocked())
	c.queued.eachKeyLocked(func(key string) { out = append(out, key) })
	return out
}

// Len returns the number of queued entries: deltas for a FIFO, keys for a
// DeltaFIFO.
func (c *queueCore[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queued.entriesLocked()
}

// Idle reports whether nothing is queued and no Pop is processing an
// entry: everything written to the queue has been processed.
func (c *queueCore[T]) Idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queued.entriesLocked() == 0 && !c.inflight.active
}

// Get returns the newest known state of obj's key.
func (c *queueCore[T]) Get(obj T) (item T, exists bool, err error) {
	key, err := c.key.keyFunc(obj)
	if err != nil {
		var zero T
		return zero, false, err
	}
	item, exists = c.GetByKey(key)
	return item, exists, nil
}

// GetByKey returns the newest known state of key: queued, being
// processed, or in KnownObjects; false if there is none or it is a
// deletion.
func (c *queueCore[T]) GetByKey(key string) (item T, exists bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.currentLocked(key)
}

// Replace queues Replaced for every item, in order, and Deleted,
// FinalStateUnknown, for every known object missing from items. It fails,
// queueing nothing, if an item has no key.
func (c *queueCore[T]) Replace(items []T, resourceVersion string) error {
	keys, err := c.key.keysOf(items)
	if err != nil {
		return err
	}
	return c.replace(keys, items, resourceVersion)
}

// BeginReplace starts a Replacement that calls Replace at Commit.
func (c *queueCore[T]) BeginReplace() Replacement[T] {
	return &queueReplacement[T]{key: c.key, current: c.GetByKey, replace: c.replace}
}

func (c *queueCore[T]) replace(keys []string, items []T, resourceVersion string) error {
	return c.replaceIn(nil, keys, items, resourceVersion)
}

// replaceIn is Replace, or, with a namespace, ReplaceNamespace.
func (c *queueCore[T]) replaceIn(namespace *string, keys []string, items []T, resourceVersion string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gate.isClosed() {
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
	c.eachKnownKeyLocked(func(key string) {
		if _, ok := listed[key]; ok {
			return
		}
		if obj, ok := c.currentLocked(key); ok && (namespace == nil || obj.GetObjectMeta().Namespace == *namespace) {
			missing = append(missing, gone{key, obj})
		}
	})
	queueMissing := func() {
		for _, g := range missing {
			c.queued.pushLocked(g.key, Delta[T]{Type: Deleted, Object: g.obj, FinalStateUnknown: true})
		}
	}
	if c.deletionsFirst {
		queueMissing()
	}
	for i, key := range keys {
		c.queued.pushLocked(key, Delta[T]{Type: Replaced, Object: items[i]})
	}
	if !c.deletionsFirst {
		queueMissing()
	}

	if namespace != nil {
		return nil
	}
	if !c.replaced {
		c.replaced = true
		c.initialPending = c.queued.markInitialLocked()
	}
	c.resourceVersion = resourceVersion
	return nil
}

// ResourceVersion returns the resourceVersion passed to the last Replace.
func (c *queueCore[T]) ResourceVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resourceVersion
}

// Resync queues Sync for every object in KnownObjects with no queued
// deltas. For the object being processed, if any, the state it is being
// processed with is used, so a resync never goes back to an older state.
func (c *queueCore[T]) Resync() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gate.isClosed() {
		return ErrClosed
	}
	if c.known == nil {
		return nil
	}
	for _, key := range c.known.ListKeys() {
		if c.queuedLocked(key) {
			continue
		}
		if obj, ok := c.currentLocked(key); ok {
			c.queued.pushLocked(key, Delta[T]{Type: Sync, Object: obj})
		}
	}
	return nil
}

// HasSynced reports whether the first Replace has happened and every entry
// queued by then has been processed.
func (c *queueCore[T]) HasSynced() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.replaced && c.initialPending == 0
}

// Close ends the queue: a waiting Pop returns ErrClosed, and so do later
// Pops and writes.
func (c *queueCore[T]) Close() { c.gate.close() }

// beginPop waits for this Pop's turn and for a queued entry. On success it
// returns holding the gate's slot and mu; the caller takes its entry,
// unlocks mu and, once process has run, calls endPop.
func (c *queueCore[T]) beginPop(ctx context.Context, process PopProcessFunc[T]) error {
	if process == nil {
		return errors.New("pop: nil process function")
	}
	if err := c.gate.acquire(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	for c.queued.entriesLocked() == 0 && !c.gate.isClosed() {
		c.mu.Unlock()
		if err := c.gate.wait(ctx); err != nil {
			c.gate.release()
			return err
		}
		c.mu.Lock()
	}
	if c.gate.isClosed() {
		c.mu.Unlock()
		c.gate.release()
		return ErrClosed
	}
	return nil
}

// endPop ends a Pop whose process function returned err (or panicked,
// leaving err nil): the entry is no longer in flight, and either requeue
// puts it back (when err asks for it; requeue runs with mu held) or it
// counts as processed. It releases the gate's slot.
func (c *queueCore[T]) endPop(err error, initial bool, requeue func()) {
	defer c.gate.release()
	wantRequeue := false
	if err != nil {
		_, wantRequeue = errors.AsType[*RequeueError](err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight = inflight[T]{}
	if wantRequeue {
		if !c.gate.isClosed() {
			requeue()
		}
	} else if initial {
		c.initialPending--
	}
}
