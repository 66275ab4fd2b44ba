package workqueue

import "time"

// Clock is the queue's source of time: the current instant and one-shot
// timers. AddAfter, AddRateLimited, the token bucket and the wait/work time
// metrics all read it, so a test that injects a FakeClock decides when
// delayed items become due instead of sleeping.
//
// The shape is the one every kubecache component that waits on time uses
// (the reflector's Clock has it too), so one fake clock can drive a whole
// controller test. A Clock must be safe for concurrent use.
type Clock interface {
	// Now returns the current time. It must never go backwards.
	Now() time.Time
	// NewTimer starts a one-shot timer that delivers the time on the
	// returned channel once d has passed (at once if d <= 0). The channel
	// has a buffer of one, so a timer nobody receives from does not block.
	// The function stops the timer and reports whether it did so (false if
	// it had already fired or been stopped); it does not drain the channel.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// RealClock is the wall clock: time.Now and time.Timer. Its zero value is
// ready to use, and it is what the queue uses when Options.Clock is nil.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// NewTimer starts a time.Timer.
func (RealClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}
