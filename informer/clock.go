package informer

import "time"

// Clock is the informer's source of time: when each handler's resync falls
// due, and the timestamps behind a handler's backlog age. It has the shape
// of reflector.Clock and workqueue.Clock, so one fake clock can drive a
// whole controller in a test.
//
// A Clock must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a channel that receives once, after d, and a stop
	// function that cancels the timer and reports whether it did so. The
	// channel must have a buffer of one.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// realClock is the wall clock, used when Options.Clock is nil.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}
