package reflector

import (
	"context"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/watch"
)

// deadline bounds one watch — the request and then its stream — on the
// reflector's clock. When it expires it closes expired and cancels the
// watch's context, which ends a request still waiting for response headers
// (a black-holed connection) as surely as a stream that went quiet. A
// streaming list starts it with InitialEventsTimeout and extends it to the
// watch's own deadline once the initial events are in.
//
// Its one goroutine waits on the clock's timer; end stops it and waits for
// it, so whoever holds the deadline owns the goroutine.
type deadline struct {
	clock   clock.Clock
	cancel  context.CancelFunc
	expired chan struct{}
	reset   chan clockTimer
	done    chan struct{}
}

// clockTimer is a timer made by a Clock.
type clockTimer struct {
	c    <-chan time.Time
	stop func() bool
}

// startDeadline returns a context for the watch and the deadline that
// cancels it d from now. The timer is armed before startDeadline returns.
func (r *Reflector[T]) startDeadline(ctx context.Context, d time.Duration) (context.Context, *deadline) {
	wctx, cancel := context.WithCancel(ctx)
	dl := &deadline{clock: r.clock, cancel: cancel, expired: make(chan struct{}), reset: make(chan clockTimer), done: make(chan struct{})}
	c, stop := r.clock.NewTimer(d)
	go func() {
		defer close(dl.done)
		for {
			select {
			case <-c:
				close(dl.expired)
				cancel()
				return
			case t := <-dl.reset:
				stop()
				c, stop = t.c, t.stop
			case <-wctx.Done():
				stop()
				return
			}
		}
	}()
	return wctx, dl
}

// openWatch starts a deadline d from now and opens a watch with opts under
// it. If the watch does not open it returns a nil watch and why: stopped
// when ctx ended, the request's error otherwise, made into an outcome by
// unanswered when the deadline expired before any answer came.
func (r *Reflector[T]) openWatch(ctx context.Context, d time.Duration, opts ListOptions, known Known[T], unanswered func(error) outcome) (watch.Interface[T], *deadline, outcome) {
	wctx, dl := r.startDeadline(ctx, d)
	wctx, wire := withWireNote(wctx)
	w, err := r.lw.Watch(wctx, opts, known)
	if err == nil && wire.Wire != "" {
		r.trace(WatchOpened{Wire: wire.Wire, ContentEncoding: wire.ContentEncoding})
	}
	if ctx.Err() == nil && err == nil {
		return w, dl, outcome{}
	}
	if w != nil {
		w.Stop()
	}
	expired := dl.hasExpired()
	dl.end()
	switch {
	case ctx.Err() != nil:
		return nil, nil, outcome{stopped: true}
	case expired:
		return nil, nil, unanswered(err)
	}
	return nil, nil, outcome{err: err}
}

// extend moves the deadline to d from now, unless it has expired. The new
// timer is armed before extend returns.
func (dl *deadline) extend(d time.Duration) {
	c, stop := dl.clock.NewTimer(d)
	select {
	case dl.reset <- clockTimer{c: c, stop: stop}:
	case <-dl.done:
		stop()
	}
}

// hasExpired reports whether the deadline fired.
func (dl *deadline) hasExpired() bool {
	select {
	case <-dl.expired:
		return true
	default:
		return false
	}
}

// end cancels the watch's context and waits for the goroutine.
func (dl *deadline) end() {
	dl.cancel()
	<-dl.done
}
