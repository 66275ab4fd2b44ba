package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Defaults of the bounds a Client puts on what a server sends it.
const (
	// DefaultTimeout bounds a request made with Do, and the silence a List
	// tolerates (before its headers, and between two reads of its body):
	// 32 s, the timeout client-go's discovery client uses. A server that
	// accepts a request and never answers it fails the request instead of
	// hanging its caller.
	DefaultTimeout = 32 * time.Second
	// DefaultMaxListBytes bounds the body of one list response: 2 GiB,
	// etcd's default backend quota (--quota-backend-bytes), so no real
	// server's list of one resource comes near it.
	DefaultMaxListBytes int64 = 2 << 30
	// DefaultMaxListItems bounds the items of one list response:
	// 1,000,000, more than six times the 150,000 pods of Kubernetes'
	// largest tested cluster.
	DefaultMaxListItems = 1_000_000
	// DefaultMaxResponseBytes bounds a response read whole by Do: 128 MiB,
	// the bound of one watch frame (watch.DefaultMaxFrameSize). A single
	// object is at most 1.5 MiB in etcd; discovery and OpenAPI documents
	// are a few MiB.
	DefaultMaxResponseBytes int64 = 128 << 20
)

// ErrResponseTooLarge is wrapped by the error of a request whose response
// passed one of the Client's bounds (Config.MaxListBytes, MaxListItems,
// MaxResponseBytes). The request is abandoned and its connection closed.
var ErrResponseTooLarge = errors.New("response too large")

// ErrServerSilent is wrapped by the error of a List whose server said
// nothing for Config.Timeout: no response headers, or no byte of the body.
var ErrServerSilent = errors.New("server sent nothing")

// boundedBody reads a response body and fails with ErrResponseTooLarge
// once more than limit bytes arrived. Each read is recorded with the guard
// (if any) as progress.
type boundedBody struct {
	r     io.ReadCloser
	n     int64
	limit int64
	what  string // the Config field that sets limit
	guard *silenceGuard
}

// Read reads from the body, counting bytes against the limit.
func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if n > 0 && b.guard != nil {
		b.guard.progress()
	}
	if b.n > b.limit {
		return n, fmt.Errorf("%w: more than %d bytes (%s)", ErrResponseTooLarge, b.limit, b.what)
	}
	return n, err
}

// Close closes the body.
func (b *boundedBody) Close() error { return b.r.Close() }

// silenceGuard cancels a request once it has made no progress for d: no
// response headers within d of the start, then no byte within d of the
// last one. It runs on the wall clock (not Config.Clock: a test's fake
// clock moved past every deadline must not cut a list in flight) and
// holds no goroutine: a timer re-arms itself until stop.
type silenceGuard struct {
	d      time.Duration
	cancel context.CancelCauseFunc
	cause  error
	timer  *time.Timer

	mu   sync.Mutex
	last time.Time
}

// newSilenceGuard returns ctx wrapped so that the guard can cancel it, and
// arms the guard. The caller must call stop.
func newSilenceGuard(ctx context.Context, d time.Duration, what string) (context.Context, *silenceGuard) {
	ctx, cancel := context.WithCancelCause(ctx)
	g := &silenceGuard{
		d: d, cancel: cancel, last: time.Now(),
		cause: fmt.Errorf("%w for %v (Config.Timeout) during %s", ErrServerSilent, d, what),
	}
	g.timer = time.AfterFunc(d, g.check)
	return ctx, g
}

// progress records that something arrived now.
func (g *silenceGuard) progress() {
	g.mu.Lock()
	g.last = time.Now()
	g.mu.Unlock()
}

// check cancels the request if d passed without progress, or re-arms the
// timer for the rest of the wait.
func (g *silenceGuard) check() {
	g.mu.Lock()
	idle := time.Since(g.last)
	g.mu.Unlock()
	if idle >= g.d {
		g.cancel(g.cause)
		return
	}
	g.timer.Reset(g.d - idle)
}

// stop disarms the guard and releases its context.
func (g *silenceGuard) stop() {
	g.timer.Stop()
	g.cancel(context.Canceled)
}

// explain returns the guard's own error instead of err when the guard
// cancelled the request (the transport then reports only "context
// canceled").
func (g *silenceGuard) explain(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), ErrServerSilent) {
		return g.cause
	}
	return err
}

// timeoutCause returns the cause of ctx's end (which names the timeout
// that ran out) in place of err when ctx ended; the transport itself only
// says "context deadline exceeded".
func timeoutCause(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil && !errors.Is(err, cause) {
		return fmt.Errorf("%w (%w)", cause, err)
	}
	return err
}
