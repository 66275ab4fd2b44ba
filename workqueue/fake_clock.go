package workqueue

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// FakeClock is a Clock for tests: time stands still until Step moves it, and
// Step fires every timer whose deadline it reaches, in deadline order, before
// it returns. It is safe for concurrent use.
//
// A test that wants a parked Get to see a delayed item become due waits for
// Get's timer to exist (WaitForTimers), then calls Step. Stepping before the
// Get starts is also fine, because Get reads Now first; what a test must not
// do is Step while a Get is between reading Now and starting its timer, which
// would start the timer that much late.
type FakeClock struct {
	// mu guards now, timers, nextID and changed.
	mu  sync.Mutex
	now time.Time
	// timers are the pending timers, in creation order.
	timers []*fakeTimer
	nextID uint64
	// changed is closed and replaced whenever a timer is added, fired or
	// stopped, waking WaitForTimers.
	changed chan struct{}
}

// fakeTimer is one pending timer of a FakeClock.
type fakeTimer struct {
	id       uint64
	deadline time.Time
	c        chan time.Time
}

// NewFakeClock returns a FakeClock that reads now until it is stepped.
func NewFakeClock(now time.Time) *FakeClock {
	return &FakeClock{now: now, changed: make(chan struct{})}
}

// Now returns the fake current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer starts a timer that fires when Step has moved the clock d past
// the current fake time, or at once if d <= 0.
func (c *FakeClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch, func() bool { return false }
	}
	c.nextID++
	t := &fakeTimer{id: c.nextID, deadline: c.now.Add(d), c: ch}
	c.timers = append(c.timers, t)
	c.notifyLocked()
	return ch, func() bool { return c.stop(t.id) }
}

// stop removes the timer id if it is still pending.
func (c *FakeClock) stop(id uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.IndexFunc(c.timers, func(t *fakeTimer) bool { return t.id == id })
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	c.notifyLocked()
	return true
}

// Step moves the clock forward by d and fires, in deadline order, every
// pending timer whose deadline is now reached. A negative d counts as zero:
// the fake clock never goes backwards.
func (c *FakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
	var due []*fakeTimer
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.deadline.After(c.now) {
			kept = append(kept, t)
		} else {
			due = append(due, t)
		}
	}
	clear(c.timers[len(kept):])
	c.timers = kept
	if len(due) == 0 {
		return
	}
	slices.SortStableFunc(due, func(a, b *fakeTimer) int { return a.deadline.Compare(b.deadline) })
	for _, t := range due {
		t.c <- c.now // never blocks: a buffer of one, and each timer fires once
	}
	c.notifyLocked()
}

// PendingTimers returns how many timers are waiting for their deadline.
func (c *FakeClock) PendingTimers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// WaitForTimers blocks until at least n timers are pending, or ctx ends. It is
// how a test knows that a goroutine is parked on the clock (for example a Get
// waiting for a delayed item) before it calls Step.
func (c *FakeClock) WaitForTimers(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		have, changed := len(c.timers), c.changed
		c.mu.Unlock()
		if have >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("fake clock: waiting for %d timers, %d pending: %w", n, have, ctx.Err())
		}
	}
}

// notifyLocked wakes every WaitForTimers. c.mu must be held.
func (c *FakeClock) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}
