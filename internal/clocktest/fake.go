// Package clocktest provides a fake clock for tests of code that waits on
// time: backoff, timeouts, resync periods. Time stands still until the test
// moves it, so a test waits on conditions, never on wall-clock sleeps.
//
// Fake satisfies any clock interface of the shape
//
//	Now() time.Time
//	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
//
// which is the shape reflector.Clock has. The shape names no type from this
// package, so the interface can live in the package that consumes it without
// an import cycle.
package clocktest

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Fake is a manually driven clock. Its zero value is not usable; call New.
// It is safe for concurrent use.
type Fake struct {
	// mu guards now, timers, nextID and changed.
	mu  sync.Mutex
	now time.Time
	// timers are the pending timers, in creation order.
	timers []*timer
	nextID uint64
	// changed is closed and replaced whenever the set of pending timers or
	// the time changes, waking WaitFor.
	changed chan struct{}
}

// timer is one pending timer of a Fake.
type timer struct {
	id       uint64
	deadline time.Time
	d        time.Duration
	c        chan time.Time
}

// New returns a Fake that reads start until it is advanced.
func New(start time.Time) *Fake {
	return &Fake{now: start, changed: make(chan struct{})}
}

// Now returns the fake current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a channel that receives the fake time once the clock has
// been advanced by at least d, and a stop function that cancels the timer and
// reports whether it did so (false once it has fired or been stopped). A d of
// zero or less fires at once. The channel has a buffer of one, so a timer
// that fires with no receiver never blocks Advance.
func (f *Fake) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := make(chan time.Time, 1)
	if d <= 0 {
		c <- f.now
		return c, func() bool { return false }
	}
	f.nextID++
	t := &timer{id: f.nextID, deadline: f.now.Add(d), d: d, c: c}
	f.timers = append(f.timers, t)
	f.notifyLocked()
	return c, func() bool { return f.stop(t.id) }
}

// stop removes the timer id if it is still pending.
func (f *Fake) stop(id uint64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.IndexFunc(f.timers, func(t *timer) bool { return t.id == id })
	if i < 0 {
		return false
	}
	f.timers = slices.Delete(f.timers, i, i+1)
	f.notifyLocked()
	return true
}

// Advance moves the clock forward by d (a negative d counts as zero) and
// fires, in deadline order, every timer whose deadline is reached.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d > 0 {
		f.now = f.now.Add(d)
	}
	f.fireDueLocked()
	f.notifyLocked()
}

// AdvanceToNext moves the clock to the earliest pending deadline and fires
// the timers due then. It returns how far the clock moved, and false (moving
// nothing) when no timer is pending.
func (f *Fake) AdvanceToNext() (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.timers) == 0 {
		return 0, false
	}
	next := f.timers[0].deadline
	for _, t := range f.timers[1:] {
		if t.deadline.Before(next) {
			next = t.deadline
		}
	}
	moved := max(next.Sub(f.now), 0)
	f.now = f.now.Add(moved)
	f.fireDueLocked()
	f.notifyLocked()
	return moved, true
}

// fireDueLocked fires every timer whose deadline is not after now.
func (f *Fake) fireDueLocked() {
	var due []*timer
	kept := f.timers[:0]
	for _, t := range f.timers {
		if t.deadline.After(f.now) {
			kept = append(kept, t)
		} else {
			due = append(due, t)
		}
	}
	clear(f.timers[len(kept):])
	f.timers = kept
	slices.SortStableFunc(due, func(a, b *timer) int { return a.deadline.Compare(b.deadline) })
	for _, t := range due {
		t.c <- f.now // never blocks: a buffer of one, and each timer fires once
	}
}

// Pending returns the duration each pending timer was created with, in
// creation order. Tests use it to check what a component is waiting for (a
// backoff of 800ms, a watch deadline of 5m).
func (f *Fake) Pending() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]time.Duration, len(f.timers))
	for i, t := range f.timers {
		out[i] = t.d
	}
	return out
}

// WaitFor blocks until cond, called with the durations of the pending timers
// (as Pending returns them), reports true, or until ctx ends, in which case
// it returns ctx's error. It is how a test learns that a goroutine is parked
// on the clock before it advances it.
func (f *Fake) WaitFor(ctx context.Context, cond func(pending []time.Duration) bool) error {
	for {
		f.mu.Lock()
		pending := make([]time.Duration, len(f.timers))
		for i, t := range f.timers {
			pending[i] = t.d
		}
		changed := f.changed
		f.mu.Unlock()
		if cond(pending) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitForTimers blocks until at least n timers are pending or ctx ends.
func (f *Fake) WaitForTimers(ctx context.Context, n int) error {
	return f.WaitFor(ctx, func(p []time.Duration) bool { return len(p) >= n })
}

// WaitForTimer blocks until a timer created with exactly duration d is
// pending, or ctx ends.
func (f *Fake) WaitForTimer(ctx context.Context, d time.Duration) error {
	return f.WaitFor(ctx, func(p []time.Duration) bool { return slices.Contains(p, d) })
}

// notifyLocked wakes every WaitFor.
func (f *Fake) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}
