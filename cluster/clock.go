package cluster

import (
	"time"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// ServerClock adapts the fake API server's clock to the controllers'
// clock, so the two can share one time.
type ServerClock struct{ C fakeapiserver.Clock }

// Now returns the server clock's time.
func (c ServerClock) Now() time.Time { return c.C.Now() }

// NewTimer starts a timer on the server clock.
func (c ServerClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	return c.C.NewTimer(d)
}
