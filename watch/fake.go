package watch

import (
	"sync"

	"github.com/kubecache/kubecache/meta"
)

// FakeWatcher is an Interface[T] driven by a test: each method call sends
// one event. It is for tests of code that consumes watches (a reflector, a
// controller) without a server.
//
// The channel is unbuffered, so each send blocks until the consumer
// receives the event or the watcher is stopped; a send after Stop is
// dropped. All methods are safe for concurrent use.
type FakeWatcher[T any] struct {
	result chan Event[T]
	// stop is closed by Stop, which unblocks senders.
	stop     chan struct{}
	stopOnce sync.Once

	// mu guards stopped and the closing of result: senders hold it for
	// reading while they send, Stop holds it for writing while it closes.
	mu      sync.RWMutex
	stopped bool
}

// NewFake returns a FakeWatcher with an open, unbuffered channel.
func NewFake[T any]() *FakeWatcher[T] {
	return &FakeWatcher[T]{
		result: make(chan Event[T]),
		stop:   make(chan struct{}),
	}
}

// ResultChan returns the channel events arrive on; Stop closes it.
func (f *FakeWatcher[T]) ResultChan() <-chan Event[T] { return f.result }

// Stop closes the result channel, once. Pending and later sends are
// dropped. It is idempotent and safe to call from any goroutine.
func (f *FakeWatcher[T]) Stop() {
	f.stopOnce.Do(func() {
		close(f.stop)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stopped = true
		close(f.result)
	})
}

// IsStopped reports whether Stop has been called.
func (f *FakeWatcher[T]) IsStopped() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.stopped
}

// Action sends ev and reports whether it was received (false if the
// watcher was stopped first).
func (f *FakeWatcher[T]) Action(ev Event[T]) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.stopped {
		return false
	}
	select {
	case f.result <- ev:
		return true
	case <-f.stop:
		return false
	}
}

// Add sends an Added event for obj.
func (f *FakeWatcher[T]) Add(obj T) { f.Action(Event[T]{Type: Added, Object: obj}) }

// Modify sends a Modified event for obj.
func (f *FakeWatcher[T]) Modify(obj T) { f.Action(Event[T]{Type: Modified, Object: obj}) }

// Delete sends a Deleted event for obj, the object's last state.
func (f *FakeWatcher[T]) Delete(obj T) { f.Action(Event[T]{Type: Deleted, Object: obj}) }

// Bookmark sends a Bookmark event; obj should carry only a resourceVersion
// (and the initial-events-end annotation, if it ends a streaming list).
func (f *FakeWatcher[T]) Bookmark(obj T) { f.Action(Event[T]{Type: Bookmark, Object: obj}) }

// Error sends an Error event carrying status, as a server does before it
// ends a watch (a 410 Expired means: list again).
func (f *FakeWatcher[T]) Error(status *meta.Status) {
	f.Action(Event[T]{Type: Error, Status: status})
}
