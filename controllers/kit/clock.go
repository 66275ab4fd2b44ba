package kit

import "time"

// Clock is the cluster's time for the controllers and simulated nodes.
// It has the shape of the informer's and the work queue's clocks, so
// workqueue.FakeClock, or the fake API server's clock through an adapter,
// can drive a whole cluster. It must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a channel (buffer of one) that receives once,
	// after d, and a function that stops the timer.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// WallClock is the real time; Env uses it when Clock is nil.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// NewTimer starts a time.Timer.
func (WallClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}
