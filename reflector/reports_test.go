package reflector

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// reports collects what a reflector tells its OnError and Trace hooks, for
// a test to read and to await.
type reports struct {
	// mu guards errs, traces and traced.
	mu     sync.Mutex
	errs   []*Error
	traces []TraceEvent
	// traced is closed and replaced on every trace event.
	traced chan struct{}
}

// install points opts' OnError and Trace hooks at r.
func (r *reports) install(opts *Options) {
	r.traced = make(chan struct{})
	opts.OnError = func(e *Error) { r.mu.Lock(); r.errs = append(r.errs, e); r.mu.Unlock() }
	opts.Trace = func(e TraceEvent) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.traces = append(r.traces, e)
		close(r.traced)
		r.traced = make(chan struct{})
	}
}

// errors returns the errors reported so far.
func (r *reports) errors() []*Error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Error(nil), r.errs...)
}

// onlyError requires that exactly one error was reported and returns it.
func (r *reports) onlyError(t testing.TB) *Error {
	t.Helper()
	errs := r.errors()
	require.Len(t, errs, 1)
	return errs[0]
}

// tracedChan returns a channel closed at the next trace event.
func (r *reports) tracedChan() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.traced
}

// allTraces returns the trace events so far.
func (r *reports) allTraces() []TraceEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]TraceEvent(nil), r.traces...)
}

// tracesOf returns the trace events so far of type E.
func tracesOf[E TraceEvent](from interface{ allTraces() []TraceEvent }) []E {
	var out []E
	for _, ev := range from.allTraces() {
		if e, ok := ev.(E); ok {
			out = append(out, e)
		}
	}
	return out
}

// running is a reflector's run in a goroutine of its own.
type running struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// goRun runs fn(ctx) in a goroutine until the returned run is stopped;
// cancel cancels ctx.
func goRun(ctx context.Context, cancel context.CancelFunc, fn func(ctx context.Context)) running {
	r := running{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		fn(ctx)
	}()
	return r
}

// stop cancels the run and waits up to within for it to return.
func (r running) stop(t testing.TB, within time.Duration) {
	r.cancel()
	select {
	case <-r.done:
	case <-time.After(within):
		t.Fatal("Run did not return after its context was cancelled")
	}
}
