package growth

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

const (
	// SizeRatio is how many times more items the large input of Linear
	// has than the small one: wide enough that work done once per item
	// per item (64 times the cost per item) stands far from linear work
	// whose cost per item rises as its data outgrows the processor's
	// caches.
	SizeRatio = 64
	// MaxCostRatio is how many times the cost per item at the large size
	// may be of the cost per item at the small size. Linear work that
	// builds a hash of its items measures 5 to 7 here (a 1,000-key
	// object fits the caches, a 64,000-key one does not; under the race
	// detector or not), so 16 leaves more than twice that for noise,
	// and still fails work whose quadratic part is a quarter of its cost
	// at the small size.
	MaxCostRatio = 16
	// minCPU is the CPU time one measurement gathers at the least,
	// running the operation again as often as needed, so that a stray
	// garbage collection or the clock's granularity is noise.
	minCPU = 100 * time.Millisecond
	// rounds is how many measurements of each size are taken; the least
	// of each counts, which is the one least disturbed by whatever else
	// ran.
	rounds = 2
	// pollEvery is how often a run at the large size checks whether it
	// has used more CPU time than a linear run may.
	pollEvery = 20 * time.Millisecond
)

// Linear fails t unless the operation prepare(n) returns costs, per item,
// less than MaxCostRatio times as much CPU time for n = small*SizeRatio as
// for n = small. prepare builds the input of n items (not measured) and
// returns the operation, which Linear runs many times; the operation
// reports its own errors with t.Error, not t.Fatal (a run at the large
// size runs in a goroutine of its own).
//
// The small size is measured first; a run at the large size that uses
// more CPU time than the verdict allows is not waited for: the test fails
// at once (t.Fatal: whatever it measured next would share the processor
// with that run), and the run is left to finish in the background, so
// that a quadratic operation fails in seconds rather than at the test
// timeout.
func Linear(t testing.TB, what string, small int, prepare func(n int) func()) {
	t.Helper()
	large := small * SizeRatio
	smallOp, largeOp := prepare(small), prepare(large)
	var smallCost, largeCost time.Duration
	for range rounds {
		smallCost = least(smallCost, perItem(t, small, smallOp))
	}
	// Twice what the verdict allows, so that one run disturbed by
	// whatever else ran is still measured.
	limit := 2 * MaxCostRatio * smallCost * time.Duration(large)
	for range rounds {
		c, ok := boundedPerItem(t, large, largeOp, limit)
		if !ok {
			t.Fatalf("%s: one run at %d items used more than %v of CPU time, %d times the %v per item measured at %d items; linear work stays under %d times",
				what, large, limit, 2*MaxCostRatio, smallCost, small, MaxCostRatio)
		}
		largeCost = least(largeCost, c)
	}
	ratio := float64(largeCost) / float64(smallCost)
	t.Logf("%s: %v per item at %d items, %v at %d (%.2f times)", what, smallCost, small, largeCost, large, ratio)
	if ratio >= MaxCostRatio {
		t.Errorf("%s: the cost per item at %d items is %.1f times the cost at %d items (%v against %v); linear work stays under %d times",
			what, large, ratio, small, largeCost, smallCost, MaxCostRatio)
	}
}

// least returns the smaller of a and b, taking 0 as not yet measured.
func least(a, b time.Duration) time.Duration {
	if a == 0 || b < a {
		return b
	}
	return a
}

// perItem runs op until it has used minCPU of CPU time and returns the
// time per run divided by n.
func perItem(t testing.TB, n int, op func()) time.Duration {
	t.Helper()
	runtime.GC()
	start := cpuTime(t)
	for runs := 1; ; runs++ {
		op()
		if used := cpuTime(t) - start; used >= minCPU {
			return used / time.Duration(runs*n)
		}
	}
}

// boundedPerItem is perItem for an operation that may not use more than
// limit in one run; it reports false, without waiting for the run to
// end, when one does.
func boundedPerItem(t testing.TB, n int, op func(), limit time.Duration) (time.Duration, bool) {
	t.Helper()
	runtime.GC()
	start := cpuTime(t)
	for runs := 1; ; runs++ {
		if !runWithin(t, op, limit) {
			return 0, false
		}
		if used := cpuTime(t) - start; used >= minCPU {
			return used / time.Duration(runs*n), true
		}
	}
}

// runWithin runs op in a goroutine and reports whether it ended before
// the process used limit of CPU time.
func runWithin(t testing.TB, op func(), limit time.Duration) bool {
	t.Helper()
	done := make(chan struct{})
	start := cpuTime(t)
	go func() {
		defer close(done)
		op()
	}()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return true
		case <-tick.C:
			if cpuTime(t)-start > limit {
				return false
			}
		}
	}
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
