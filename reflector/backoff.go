package reflector

import "time"

// backoff hands out the waits between retries: exponential from Initial to
// Max, reset after ResetAfter without a failure, each stretched by jitter.
// It is used only from the reflector's goroutine.
type backoff struct {
	cfg Backoff
	// rand returns a number in [0, 1) for jitter.
	rand func() float64
	// cur is the last wait before jitter; zero before the first.
	cur time.Duration
	// last is when the last wait was handed out.
	last time.Time
}

// next returns the wait after a failure at now.
func (b *backoff) next(now time.Time) time.Duration {
	if b.cur == 0 || now.Sub(b.last) >= b.cfg.ResetAfter {
		b.cur = b.cfg.Initial
	} else {
		b.cur = min(b.cur*2, b.cfg.Max)
	}
	b.last = now
	return b.jitter(b.cur)
}

// slow returns the wait before retrying an error only a human can fix: the
// cap, with jitter.
func (b *backoff) slow() time.Duration { return b.jitter(b.cfg.Max) }

// jitter stretches d to a random value in [d, d*(1+Jitter)).
func (b *backoff) jitter(d time.Duration) time.Duration {
	if b.cfg.Jitter == 0 {
		return d
	}
	return d + time.Duration(b.cfg.Jitter*b.rand()*float64(d))
}
