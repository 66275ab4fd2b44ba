package watch

import (
	"context"
	"sync"
)

// DefaultBufferSize is each watcher's queue length when
// BroadcasterOptions.BufferSize is zero.
const DefaultBufferSize = 100

// BroadcasterOptions configures a Broadcaster. The zero value is ready to
// use.
type BroadcasterOptions struct {
	// BufferSize is how many events each watcher may have queued and not
	// yet received. A watcher whose queue is full when an event arrives is
	// closed (see Broadcaster). Zero or negative means DefaultBufferSize.
	BufferSize int
}

// WatchOptions configures one watcher of a Broadcaster.
type WatchOptions[T any] struct {
	// Initial events are queued for the watcher before any event passed to
	// Action after Watch returns, and do not count against BufferSize. The
	// fake API server passes the synthetic ADDED events of a watch without
	// a resourceVersion here.
	Initial []Event[T]
	// Filter, if set, decides which events this watcher gets and may rewrite
	// them (an object that stops matching a selector becomes Deleted). It is
	// called from Action with the Broadcaster's lock held, so it must be
	// fast and must not call the Broadcaster. Initial events are not
	// filtered.
	Filter func(Event[T]) (Event[T], bool)
}

// Broadcaster fans events out to any number of watchers, each with its own
// bounded queue. The fake API server uses one per resource.
//
// Action never blocks and never grows memory without bound: when a
// watcher's queue is full, the Broadcaster closes that watcher, as the real
// API server closes a watcher that cannot keep up. The watcher's consumer
// sees its channel close after the events already queued and must watch
// again from the last resourceVersion it saw. Other watchers are not
// affected.
//
// A Broadcaster starts no goroutines of its own. All methods are safe for
// concurrent use.
type Broadcaster[T any] struct {
	bufferSize int

	// mu guards watchers and shutdown, and serialises every send to and
	// close of a watcher's channel.
	mu       sync.Mutex
	watchers map[*broadcastWatcher[T]]struct{}
	shutdown bool
}

// NewBroadcaster returns a Broadcaster with no watchers.
func NewBroadcaster[T any](opts BroadcasterOptions) *Broadcaster[T] {
	size := opts.BufferSize
	if size <= 0 {
		size = DefaultBufferSize
	}
	return &Broadcaster[T]{
		bufferSize: size,
		watchers:   make(map[*broadcastWatcher[T]]struct{}),
	}
}

// Watch adds a watcher that receives opts.Initial, then every event passed
// to Action from now on (that opts.Filter lets through), in order. The
// watcher ends when its consumer calls Stop, when ctx is done, when its
// queue overflows, or at Shutdown; after Shutdown, Watch returns a watcher
// whose channel holds only opts.Initial and is already closed.
func (b *Broadcaster[T]) Watch(ctx context.Context, opts WatchOptions[T]) Interface[T] {
	w := &broadcastWatcher[T]{
		b:      b,
		filter: opts.Filter,
		result: make(chan Event[T], b.bufferSize+len(opts.Initial)),
	}
	for _, ev := range opts.Initial {
		w.result <- ev
	}
	// The AfterFunc runs remove in a goroutine of its own when ctx is
	// done; Stop and Shutdown deregister it, or wait for it if it started.
	w.afterDone = make(chan struct{})
	w.stopAfter = context.AfterFunc(ctx, func() {
		defer close(w.afterDone)
		w.remove()
	})
	b.mu.Lock()
	if b.shutdown || w.closed {
		// Shut down, or ctx was already done and the hook has closed it.
		w.closeLocked()
		b.mu.Unlock()
		w.releaseContext()
		return w
	}
	b.watchers[w] = struct{}{}
	b.mu.Unlock()
	return w
}

// Action sends ev to every watcher whose filter accepts it. It does not
// block: a watcher whose queue is full is closed instead. After Shutdown it
// does nothing.
func (b *Broadcaster[T]) Action(ev Event[T]) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.watchers {
		out := ev
		if w.filter != nil {
			var ok bool
			if out, ok = w.filter(ev); !ok {
				continue
			}
		}
		select {
		case w.result <- out:
		default:
			// Too slow: end this watch, as the API server does.
			delete(b.watchers, w)
			w.closeLocked()
		}
	}
}

// Shutdown closes every watcher and refuses new ones. Events already queued
// can still be received. It is idempotent.
func (b *Broadcaster[T]) Shutdown() {
	b.mu.Lock()
	b.shutdown = true
	ws := b.watchers
	b.watchers = make(map[*broadcastWatcher[T]]struct{})
	for w := range ws {
		w.closeLocked()
	}
	b.mu.Unlock()
	// Release the context hooks outside the lock: a hook that already
	// started waits for the lock in remove.
	for w := range ws {
		w.releaseContext()
	}
}

// Len returns the number of open watchers.
func (b *Broadcaster[T]) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.watchers)
}

// broadcastWatcher is one watcher of a Broadcaster: a buffered channel that
// the Broadcaster fills and closes.
type broadcastWatcher[T any] struct {
	b      *Broadcaster[T]
	filter func(Event[T]) (Event[T], bool)
	result chan Event[T]
	// closed is guarded by b.mu.
	closed bool

	// stopAfter deregisters the context hook; afterDone is closed when the
	// hook has run. Both are set before the watcher is shared.
	stopAfter func() bool
	afterDone chan struct{}
	// releaseOnce makes releaseContext run once.
	releaseOnce sync.Once
}

// ResultChan returns the channel events arrive on. It is closed exactly
// once, when the watcher ends.
func (w *broadcastWatcher[T]) ResultChan() <-chan Event[T] { return w.result }

// Stop removes the watcher and closes its channel. It is idempotent and
// safe to call from any goroutine.
func (w *broadcastWatcher[T]) Stop() {
	w.remove()
	w.releaseContext()
}

// remove takes the watcher out of the Broadcaster and closes its channel.
func (w *broadcastWatcher[T]) remove() {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	delete(w.b.watchers, w)
	w.closeLocked()
}

// closeLocked closes the channel once; b.mu must be held (or the watcher
// not yet shared).
func (w *broadcastWatcher[T]) closeLocked() {
	if !w.closed {
		w.closed = true
		close(w.result)
	}
}

// releaseContext deregisters the context hook, waiting for it if it has
// already started, so no goroutine outlives Stop or Shutdown.
func (w *broadcastWatcher[T]) releaseContext() {
	w.releaseOnce.Do(func() {
		if !w.stopAfter() {
			<-w.afterDone
		}
	})
}
