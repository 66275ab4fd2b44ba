package workqueue

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: the queue
// starts none, and every goroutine a test starts must have ended.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
