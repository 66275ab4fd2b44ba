package meta_test

import (
	"testing"

	"go.uber.org/goleak"
)

// meta starts no goroutines, but its tests do (concurrent readers); none
// may outlive them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
