package await

import (
	"testing"
	"time"
)

// Receive returns the next value of c. It fails the test if none comes
// within d.
func Receive[V any](t testing.TB, c <-chan V, d time.Duration) V {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(d):
		t.Fatalf("nothing received on %T within %v", c, d)
	}
	var zero V
	return zero
}
