package reflector

import "time"

// Clock is the reflector's source of time: backoff waits, watch deadlines,
// the streaming-list bound and the resync period all read it, so a test that
// injects a fake clock (internal/clocktest) decides when they expire instead
// of sleeping.
//
// A Clock must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a channel that receives once, after d, and a stop
	// function that cancels the timer and reports whether it did so (false
	// once the timer has fired or been stopped). The channel must have a
	// buffer, so that a timer nobody waits for never blocks the clock.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// RealClock is the wall clock. It is what a Reflector uses when
// Options.Clock is nil.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// NewTimer returns a time.Timer's channel and its Stop method.
func (RealClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}
