package fakeapiserver

import (
	"time"

	"github.com/kubecache/kubecache/clock"
)

// Clock is the server's source of time: creation timestamps, watch
// deadlines, bookmark intervals, compaction by age, the too-large
// resourceVersion wait and injected delays all read it. It is kubecache's
// one clock interface (package clock), so a test can hand the server and
// its clients the same FakeClock.
type Clock = clock.Clock

// RealClock is the wall clock.
type RealClock = clock.Real

// FakeClock is a Clock that moves only when told to (Step, Set); see
// clock.Fake. It is safe for concurrent use.
type FakeClock = clock.Fake

// NewFakeClock returns a FakeClock set to now.
func NewFakeClock(now time.Time) *FakeClock { return clock.NewFake(now) }
