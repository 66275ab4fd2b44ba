package growth

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// recorder is a testing.TB that keeps the failures of the check it is
// handed to instead of failing the test that runs it.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Logf(format string, args ...any) { r.TB.Logf(format, args...) }

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// check runs Linear on op with a recorder, in a goroutine of its own so
// that its Fatalf can end it, and returns the failures.
func check(t *testing.T, small int, op func(items []int)) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Linear(r, "op", small, func(n int) func() {
			items := make([]int, n)
			return func() { op(items) }
		})
	}()
	<-done
	return r.failed
}

// A pass over the items passes; a pass over the items for each item fails,
// at once, on the bound of one run. The sizes are small (100 and 6,400
// items) so that the quadratic run is abandoned within a fraction of a
// second of CPU time.
func TestLinearTellsLinearFromQuadratic(t *testing.T) {
	linear := check(t, 100, func(items []int) {
		for i := range items {
			items[i] += i
		}
	})
	if len(linear) != 0 {
		t.Errorf("a pass over the items: %v", linear)
	}
	// The run Linear abandons is told to stop and waited for, so that it
	// does not use the CPU time the next test (or the next -count) measures.
	var stop atomic.Bool
	// running is held by a run while it works.
	var running sync.Mutex
	quadratic := check(t, 100, func(items []int) {
		running.Lock()
		defer running.Unlock()
		for i := range items {
			if stop.Load() {
				return
			}
			for j := range items {
				items[i] += j
			}
		}
	})
	stop.Store(true)
	running.Lock()
	running.Unlock()
	if len(quadratic) != 1 {
		t.Fatalf("a pass per item: %d failures %v, want 1", len(quadratic), quadratic)
	}
	t.Logf("a pass per item: %s", quadratic[0])
}
