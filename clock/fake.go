package clock

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Fake is a Clock for tests: time stands still until Step or Set moves it,
// and a move fires every timer whose deadline it reaches, in deadline order,
// before it returns. Its zero value is not usable; call NewFake. It is safe
// for concurrent use.
//
// A test that wants a parked goroutine to see its timer fire first waits
// for the timer to exist (WaitForTimers, WaitForTimer or WaitFor), then
// moves the clock. What a test must not do is move the clock while the
// goroutine is between reading Now and starting its timer, which would
// start the timer that much late.
type Fake struct {
	// mu guards now, timers, nextID and changed.
	mu  sync.Mutex
	now time.Time
	// timers are the pending timers, in creation order.
	timers []*fakeTimer
	nextID uint64
	// changed is closed and replaced whenever the time or the set of
	// pending timers changes, waking WaitFor.
	changed chan struct{}
}

var _ Clock = (*Fake)(nil)

// fakeTimer is one pending timer of a Fake.
type fakeTimer struct {
	id       uint64
	deadline time.Time
	d        time.Duration
	c        chan time.Time
}

// NewFake returns a Fake that reads now until it is moved.
func NewFake(now time.Time) *Fake {
	return &Fake{now: now, changed: make(chan struct{})}
}

// Now returns the fake current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer starts a timer that fires once the clock has been moved d past
// the current fake time, or at once if d <= 0.
func (f *Fake) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := make(chan time.Time, 1)
	if d <= 0 {
		c <- f.now
		return c, func() bool { return false }
	}
	f.nextID++
	t := &fakeTimer{id: f.nextID, deadline: f.now.Add(d), d: d, c: c}
	f.timers = append(f.timers, t)
	f.notifyLocked()
	return c, func() bool { return f.stop(t.id) }
}

// stop removes the timer id if it is still pending.
func (f *Fake) stop(id uint64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.IndexFunc(f.timers, func(t *fakeTimer) bool { return t.id == id })
	if i < 0 {
		return false
	}
	f.timers = slices.Delete(f.timers, i, i+1)
	f.notifyLocked()
	return true
}

// Step moves the clock forward by d and fires, in deadline order, every
// pending timer whose deadline is now reached. A negative d counts as zero:
// a fake clock never goes backwards.
func (f *Fake) Step(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moveLocked(f.now.Add(max(d, 0)))
}

// Set moves the clock to t and fires every timer due by then, as Step does.
// A t before the current fake time leaves the clock where it is.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moveLocked(t)
}

// moveLocked moves now to t unless t is earlier, then fires the due
// timers. f.mu must be held.
func (f *Fake) moveLocked(t time.Time) {
	if t.After(f.now) {
		f.now = t
	}
	var due []*fakeTimer
	kept := f.timers[:0]
	for _, timer := range f.timers {
		if timer.deadline.After(f.now) {
			kept = append(kept, timer)
		} else {
			due = append(due, timer)
		}
	}
	clear(f.timers[len(kept):])
	f.timers = kept
	slices.SortStableFunc(due, func(a, b *fakeTimer) int { return a.deadline.Compare(b.deadline) })
	for _, timer := range due {
		timer.c <- f.now // never blocks: a buffer of one, and each timer fires once
	}
	f.notifyLocked()
}

// Pending returns the duration each pending timer was created with, in
// creation order. Tests use it to check what a component is waiting for (a
// backoff of 800ms, a watch deadline of 5m).
func (f *Fake) Pending() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pendingLocked()
}

// pendingLocked is Pending with f.mu held.
func (f *Fake) pendingLocked() []time.Duration {
	out := make([]time.Duration, len(f.timers))
	for i, t := range f.timers {
		out[i] = t.d
	}
	return out
}

// WaitFor blocks until cond, called with the durations of the pending
// timers (as Pending returns them), reports true, or until ctx ends, in
// which case it returns an error wrapping ctx's. It is how a test learns
// that a goroutine is parked on the clock before it moves it; cond is
// called again each time a timer is started, stopped or fired.
func (f *Fake) WaitFor(ctx context.Context, cond func(pending []time.Duration) bool) error {
	return f.waitFor(ctx, "a condition", cond)
}

// waitFor is WaitFor; what names the awaited state in the error.
func (f *Fake) waitFor(ctx context.Context, what string, cond func(pending []time.Duration) bool) error {
	for {
		f.mu.Lock()
		pending, changed := f.pendingLocked(), f.changed
		f.mu.Unlock()
		if cond(pending) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("fake clock: waiting for %s, %d timers pending %v: %w", what, len(pending), pending, ctx.Err())
		}
	}
}

// WaitForTimers blocks until at least n timers are pending, or ctx ends.
func (f *Fake) WaitForTimers(ctx context.Context, n int) error {
	return f.waitFor(ctx, fmt.Sprintf("%d timers", n), func(p []time.Duration) bool { return len(p) >= n })
}

// WaitForTimer blocks until a timer created with exactly duration d is
// pending, or ctx ends.
func (f *Fake) WaitForTimer(ctx context.Context, d time.Duration) error {
	return f.waitFor(ctx, "a timer of "+d.String(), func(p []time.Duration) bool { return slices.Contains(p, d) })
}

// notifyLocked wakes every WaitFor. f.mu must be held.
func (f *Fake) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}
