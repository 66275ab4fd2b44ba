package clock

import "time"

// Clock is a source of time: the current instant and one-shot timers. A
// Clock must be safe for concurrent use, and its Now must never go
// backwards.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer starts a one-shot timer that delivers the time on the
	// returned channel once d has passed (at once if d <= 0). The channel
	// has a buffer of one, so a timer nobody receives from never blocks the
	// clock. The function stops the timer and reports whether it did so
	// (false once it has fired or been stopped); it does not drain the
	// channel.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// Real is the wall clock: time.Now and time.Timer. Its zero value is ready
// to use, and it is what every component uses when its options leave the
// clock nil.
type Real struct{}

var _ Clock = Real{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer starts a time.Timer and returns its channel and Stop method.
func (Real) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// Or returns c, or Real when c is nil. Components call it on the clock
// their options carry.
func Or(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}
