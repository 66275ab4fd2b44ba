package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/watch"
)

// relister wraps the informer's ListerWatcher so that the benchmark can
// force a relist the way a server does, with a watch ERROR event carrying
// 410 Expired, and measure the live heap when the relist's LIST has been
// read completely: the moment the old cache and the new list are both
// held, before the new list replaces the old.
type relister[T meta.Object] struct {
	lw reflector.ListerWatcher[T]
	// finalRV is the replay server's last resourceVersion. The replay
	// server answers a LIST at "" with its first snapshot, not its latest
	// state; after the forced 410 the relist asks for finalRV (not older
	// than), which is what a real server's "" returns.
	finalRV string
	// onListed is called after the relist's LIST has ended.
	onListed func()

	triggered atomic.Bool
	// mu guards watches, the watches currently open.
	mu      sync.Mutex
	watches map[*expiringWatch[T]]struct{}
}

func newRelister[T meta.Object](lw reflector.ListerWatcher[T], finalRV string, onListed func()) *relister[T] {
	return &relister[T]{lw: lw, finalRV: finalRV, onListed: onListed, watches: map[*expiringWatch[T]]struct{}{}}
}

// List lists through the wrapped ListerWatcher; after the trigger it reads
// the latest state and reports the end of the list.
func (r *relister[T]) List(ctx context.Context, opts reflector.ListOptions, known reflector.Known[T], emit func(T) error) (meta.ListMeta, error) {
	relisting := r.triggered.Load()
	if relisting && opts.ResourceVersion == "" && opts.Continue == "" {
		opts.ResourceVersion, opts.ResourceVersionMatch = r.finalRV, reflector.MatchNotOlderThan
	}
	lm, err := r.lw.List(ctx, opts, known, emit)
	if relisting && err == nil && lm.Continue == "" && r.onListed != nil {
		r.onListed()
	}
	return lm, err
}

// Watch opens a watch that the trigger can expire.
func (r *relister[T]) Watch(ctx context.Context, opts reflector.ListOptions, known reflector.Known[T]) (watch.Interface[T], error) {
	w, err := r.lw.Watch(ctx, opts, known)
	if err != nil {
		return nil, err
	}
	ew := &expiringWatch[T]{inner: w, out: make(chan watch.Event[T]), stop: make(chan struct{}), expire: make(chan struct{}), done: make(chan struct{})}
	r.mu.Lock()
	r.watches[ew] = struct{}{}
	r.mu.Unlock()
	go func() {
		defer close(ew.done)
		defer func() {
			r.mu.Lock()
			delete(r.watches, ew)
			r.mu.Unlock()
		}()
		ew.run()
	}()
	return ew, nil
}

// expire makes every open watch end with 410 Expired; the relist that
// follows reads the latest state.
func (r *relister[T]) expire() {
	r.triggered.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	for w := range r.watches {
		w.expireOnce.Do(func() { close(w.expire) })
	}
}

// expiringWatch passes a watch's events on until it is told to expire,
// then sends one ERROR event with 410 Expired and ends.
type expiringWatch[T any] struct {
	inner      watch.Interface[T]
	out        chan watch.Event[T]
	stop       chan struct{}
	stopOnce   sync.Once
	expire     chan struct{}
	expireOnce sync.Once
	done       chan struct{}
}

func (w *expiringWatch[T]) ResultChan() <-chan watch.Event[T] { return w.out }

// Stop ends the watch and waits for its goroutine.
func (w *expiringWatch[T]) Stop() {
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.done
}

func (w *expiringWatch[T]) run() {
	defer close(w.out)
	defer w.inner.Stop()
	in := w.inner.ResultChan()
	for {
		select {
		case <-w.stop:
			return
		case <-w.expire:
			gone := watch.Event[T]{Type: watch.Error, Status: &meta.Status{
				Status: "Failure", Reason: meta.ReasonExpired, Code: 410,
				Message: "too old resource version (benchmark-forced relist)",
			}}
			select {
			case w.out <- gone:
			case <-w.stop:
			}
			return
		case ev, ok := <-in:
			if !ok {
				return
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			case <-w.expire:
				// Drop ev: the watch is expiring and a relist follows.
			}
		}
	}
}
