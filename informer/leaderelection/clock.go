package leaderelection

import "time"

// Clock is the elector's source of time: when to retry, when a lease
// expires, when a renewal is overdue. It has the shape of informer.Clock
// and reflector.Clock, so a test drives every component with one fake.
type Clock interface {
	Now() time.Time
	// NewTimer returns a channel that receives once, after d, and a stop
	// function. The channel must have a buffer of one.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}
