package workqueue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/metrics"
)

// ErrShutDown is returned by Get once the queue has been shut down and holds
// no more ready items. Test for it with errors.Is.
var ErrShutDown = errors.New("workqueue: shut down")

// Options configure a Queue. The zero value is ready to use.
type Options[K comparable] struct {
	// Clock is the source of time for delays, rate limiting and metrics.
	// Nil means clock.Real.
	Clock clock.Clock
	// RateLimiter decides how long AddRateLimited waits before an item is
	// retried. Nil means NewDefaultRateLimiter over Clock.
	RateLimiter RateLimiter[K]
	// InitialListFirst makes AddInitial add the items of an initial list
	// at Add's priority instead of LowPriority.
	InitialListFirst bool
	// Metrics, if set, receives the queue's measurements as it works
	// (metrics_sink.go), labelled name=Name.
	Metrics metrics.Sink
	// Name names the queue in its metrics.
	Name string
}

// Queue is a de-duplicating work queue of keys, with delayed and
// rate-limited adds, that a controller's workers drain. It is safe for
// concurrent use by any number of producers and workers.
//
// The contract a worker relies on:
//
//   - An item added any number of times before a worker takes it is handed
//     out once.
//   - An item is never held by two workers at once: between Get and Done it
//     is "processing", and an Add meanwhile only marks it dirty.
//   - An item added while it is processing is handed out again after Done.
//   - Items are handed out in the order they became ready (first Add, the
//     Done that re-queued them, or the instant a delay expired).
//
// Every item a worker receives from Get must be passed to Done when the
// worker is finished with it, whatever the outcome.
//
// The queue starts no goroutines: a delayed item becomes ready when the clock
// reaches its time, and whoever looks next (a waiting Get, which sets a timer
// for the earliest delayed item, or Len and Metrics) moves it to the ready
// list. There is therefore nothing to stop but the queue itself.
type Queue[K comparable] struct {
	clock   clock.Clock
	limiter RateLimiter[K]

	// mu guards every field below.
	mu sync.Mutex
	// ready holds the items waiting for Get, highest priority first, then
	// oldest first. An item is in ready only if it is in dirty and not in
	// processing.
	ready readyList[K]
	// dirty holds every item that needs processing (ready, or re-added while
	// processing), with the time it became due (the start of its wait
	// time), its priority and its entry in ready.
	dirty map[K]dirtyItem
	// processing holds the items handed out by Get and not yet Done, with
	// the time Get handed them out: the start of their work time.
	processing map[K]time.Time
	// delayed holds the items added with a delay that has not expired.
	delayed delayHeap[K]
	// waiters are the Gets blocked for lack of a ready item; each waits on
	// its channel (buffer of one) and is removed from the list when
	// signalled. A ready item signals one, last-in first-out, so the most
	// recently idle worker, whose stack is still warm, runs next.
	//
	// Invariant: every parked Get has a timer armed at or before the
	// earliest delayed item's due time. Parking arms one; a due time
	// leaving the heap only makes the earliest later; an AddAfter that
	// makes it earlier signals every waiter to re-arm. So whichever Gets
	// come and go, a due item always wakes one of them.
	waiters []chan struct{}
	// shuttingDown is set by ShutDown; from then on adds are refused.
	shuttingDown bool
	// drained is made by ShutDown and closed once, when the queue is shut
	// down with nothing ready and nothing processing.
	drained       chan struct{}
	drainedClosed bool
	// stats are the counters behind Metrics.
	stats stats

	// initialFirst is Options.InitialListFirst.
	initialFirst bool
	// sink and name are Options.Metrics and Options.Name.
	sink metrics.Sink
	name string

	// onPark, when set (only by this package's tests, before the queue is
	// shared), is called with mu held each time a Get parks.
	onPark func()
}

// New returns an empty queue configured by opts.
func New[K comparable](opts Options[K]) *Queue[K] {
	clk := clock.Or(opts.Clock)
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = NewDefaultRateLimiter[K](clk)
	}
	return &Queue[K]{
		clock:      clk,
		limiter:    limiter,
		dirty:      make(map[K]dirtyItem),
		processing: make(map[K]time.Time),
		delayed:    newDelayHeap[K](),

		initialFirst: opts.InitialListFirst,
		sink:         opts.Metrics,
		name:         opts.Name,
	}
}

// dirtyItem is what the queue knows of an item that needs processing.
type dirtyItem struct {
	// due is when it became due: the start of its wait time.
	due time.Time
	// priority is the highest it was added with since it was last handed
	// out.
	priority int
	// seq is its live entry in ready; 0 while it is processing.
	seq uint64
}

// Add marks item as needing processing. If the item is already waiting it is
// not queued twice; if it is processing it will be handed out again after
// Done. After ShutDown, Add does nothing (Metrics counts it as dropped).
func (q *Queue[K]) Add(item K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		q.stats.dropped++
		return
	}
	if d, ok := q.dirty[item]; ok && d.priority >= 0 {
		// The common case for a busy object; skip reading the clock.
		q.countAddLocked()
		q.stats.merged++
		return
	}
	q.addLocked(item, q.clock.Now())
}

// addLocked is Add for an item that became due at the given time. q.mu must
// be held and the queue must not be shutting down.
func (q *Queue[K]) addLocked(item K, due time.Time) { q.addPriorityLocked(item, due, 0) }

// addPriorityLocked is AddWithPriority for an item that became due at the
// given time. q.mu must be held and the queue must not be shutting down.
func (q *Queue[K]) addPriorityLocked(item K, due time.Time, priority int) {
	q.countAddLocked()
	if d, ok := q.dirty[item]; ok {
		q.stats.merged++
		if priority > d.priority {
			d.priority = priority
			if d.seq != 0 { // ready: move it up
				d.seq = q.ready.push(item, priority, false)
			}
			q.dirty[item] = d
		}
		return
	}
	d := dirtyItem{due: due, priority: priority}
	if _, ok := q.processing[item]; ok {
		q.dirty[item] = d
		return // Done will queue it
	}
	d.seq = q.ready.push(item, priority, true)
	q.dirty[item] = d
	q.depthChangedLocked()
	q.signalOneLocked()
}

// liveEntry reports whether e is the item's live entry in ready.
func (q *Queue[K]) liveEntry(e readyEntry[K]) bool {
	d, ok := q.dirty[e.item]
	return ok && d.seq == e.seq
}

// Get blocks until an item is ready and hands it to the caller, who must call
// Done with it when finished. It returns an error instead when:
//
//   - the queue has been shut down and no ready item is left (ErrShutDown;
//     items still ready at ShutDown are handed out first);
//   - ctx ends, including before Get is called (the error wraps ctx.Err()).
//
// Get never hands the same item to two callers before Done.
func (q *Queue[K]) Get(ctx context.Context) (K, error) {
	var zero K
	var wake chan struct{} // made on the first wait, reused after
	q.mu.Lock()
	for {
		if err := ctx.Err(); err != nil {
			q.mu.Unlock()
			return zero, fmt.Errorf("workqueue get: %w", err)
		}
		now := q.clock.Now()
		q.promoteLocked(now)
		if q.ready.len() > 0 {
			item := q.ready.pop(q.liveEntry)
			q.recordWaitLocked(now.Sub(q.dirty[item].due))
			delete(q.dirty, item)
			q.processing[item] = now
			q.depthChangedLocked()
			if q.ready.len() > 0 {
				q.signalOneLocked() // more work: pass the baton
			}
			q.mu.Unlock()
			return item, nil
		}
		if q.shuttingDown {
			q.mu.Unlock()
			return zero, ErrShutDown
		}

		// Nothing ready: park until an Add signals us, the earliest delayed
		// item is due, or ctx ends.
		if wake == nil {
			wake = make(chan struct{}, 1)
		}
		q.waiters = append(q.waiters, wake)
		if q.onPark != nil {
			q.onPark()
		}
		var fired <-chan time.Time
		var stopTimer func() bool
		if next, ok := q.delayed.peek(); ok {
			fired, stopTimer = q.clock.NewTimer(next.due.Sub(now))
		}
		q.mu.Unlock()

		select {
		case <-wake:
		case <-fired:
		case <-ctx.Done():
		}
		if stopTimer != nil {
			stopTimer()
		}

		q.mu.Lock()
		if !q.removeWaiterLocked(wake) {
			// Someone signalled us (and removed us from waiters). Consume
			// the signal so the channel is empty for the next wait; if we
			// are leaving because ctx ended, hand the signal on so the work
			// it announced is not stranded.
			select {
			case <-wake:
			default:
			}
			if ctx.Err() != nil {
				q.signalOneLocked()
			}
		}
	}
}

// Done marks item as finished. If it was added again while processing, it is
// queued now. Done of an item that is not processing does nothing.
func (q *Queue[K]) Done(item K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	start, ok := q.processing[item]
	if !ok {
		return
	}
	delete(q.processing, item)
	q.recordWorkLocked(q.clock.Now().Sub(start))
	if d, ok := q.dirty[item]; ok {
		d.seq = q.ready.push(item, d.priority, true)
		q.dirty[item] = d
		q.depthChangedLocked()
		q.signalOneLocked()
	}
	q.checkDrainedLocked()
}

// Len returns the number of items ready for Get (delayed items that are
// already due included; items processing or still delayed excluded).
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.promoteLocked(q.clock.Now())
	return q.ready.len()
}

// ShutDown stops the queue accepting work: from now on Add, AddAfter and
// AddRateLimited do nothing, and delayed items not yet due are discarded.
// Items already ready are still handed out by Get, which returns ErrShutDown
// once none is left; blocked Gets wake up. Workers finish and Done what they
// hold.
//
// ShutDown does not wait: the queue owns no goroutines, so it has none to
// wait for. Use ShutDownWithDrain to wait for the workers. ShutDown is
// idempotent.
func (q *Queue[K]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	q.shuttingDown = true
	q.stats.dropped += uint64(q.delayed.len())
	q.delayed.reset()
	q.drained = make(chan struct{})
	for len(q.waiters) > 0 {
		q.signalOneLocked()
	}
	q.checkDrainedLocked()
}

// ShutDownWithDrain shuts the queue down like ShutDown, then waits until the
// workers have taken every ready item and called Done for every item they
// hold. It returns nil once the queue is drained, or an error wrapping
// ctx.Err() (and saying what was left) if ctx ends first; the queue stays
// shut down either way.
//
// Draining needs workers still calling Get and Done: call it from outside
// the worker loop, before cancelling the workers' context.
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	q.ShutDown()
	q.mu.Lock()
	drained := q.drained
	q.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		ready, processing := q.ready.len(), len(q.processing)
		q.mu.Unlock()
		return fmt.Errorf("workqueue drain: %d ready, %d processing: %w", ready, processing, ctx.Err())
	}
}

// ShuttingDown reports whether ShutDown has been called.
func (q *Queue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// signalOneLocked wakes the most recently parked Get, if any, and removes it
// from the waiters. q.mu must be held.
func (q *Queue[K]) signalOneLocked() {
	n := len(q.waiters)
	if n == 0 {
		return
	}
	w := q.waiters[n-1]
	q.waiters[n-1] = nil
	q.waiters = q.waiters[:n-1]
	w <- struct{}{} // never blocks: a waiter is signalled at most once per park
}

// removeWaiterLocked removes w from the waiters and reports whether it was
// still there (false: it has been signalled). q.mu must be held.
func (q *Queue[K]) removeWaiterLocked(w chan struct{}) bool {
	for i := len(q.waiters) - 1; i >= 0; i-- {
		if q.waiters[i] == w {
			q.waiters = slices.Delete(q.waiters, i, i+1)
			return true
		}
	}
	return false
}

// checkDrainedLocked closes drained once the queue is shut down with nothing
// ready and nothing processing. q.mu must be held.
func (q *Queue[K]) checkDrainedLocked() {
	if q.shuttingDown && !q.drainedClosed && q.ready.len() == 0 && len(q.processing) == 0 {
		close(q.drained)
		q.drainedClosed = true
	}
}
