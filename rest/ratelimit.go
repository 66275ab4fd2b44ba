package rest

import (
	"context"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
)

// rateLimiter is a token bucket: it holds up to burst tokens, refills at qps
// tokens per second, and each request takes one, waiting when none is left.
// Waiters reserve their token in arrival order, so the bucket stays fair.
type rateLimiter struct {
	qps   float64
	burst float64
	clock clock.Clock

	// mu guards tokens and last.
	mu     sync.Mutex
	tokens float64   // may be negative: tokens reserved by waiters
	last   time.Time // when tokens was last brought up to date
}

func newRateLimiter(qps float64, burst int, clock clock.Clock) *rateLimiter {
	if burst < 1 {
		burst = 1
	}
	return &rateLimiter{qps: qps, burst: float64(burst), clock: clock, tokens: float64(burst), last: clock.Now()}
}

// Wait takes a token, waiting for one if needed. It returns ctx's error if
// ctx ends first, and then gives the reserved token back.
func (l *rateLimiter) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	l.refillLocked(l.clock.Now())
	l.tokens--
	var wait time.Duration
	if l.tokens < 0 {
		wait = time.Duration(-l.tokens / l.qps * float64(time.Second))
	}
	l.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	fired, stop := l.clock.NewTimer(wait)
	select {
	case <-fired:
		return nil
	case <-ctx.Done():
		stop()
		l.mu.Lock()
		l.tokens++
		l.mu.Unlock()
		return ctx.Err()
	}
}

// refillLocked adds the tokens earned since last. It expects l.mu held.
func (l *rateLimiter) refillLocked(now time.Time) {
	if elapsed := now.Sub(l.last); elapsed > 0 {
		l.tokens = min(l.burst, l.tokens+elapsed.Seconds()*l.qps)
		l.last = now
	}
}
