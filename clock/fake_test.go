package clock_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/internal/await"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// fired reports whether c has a value ready.
func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// receive returns the next value of c, failing the test after 10s.
func receive[V any](t *testing.T, c <-chan V) V { return await.Receive(t, c, 10*time.Second) }

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestTimerFiresOnlyWhenSteppedPastDeadline(t *testing.T) {
	f := clock.NewFake(epoch)
	c, _ := f.NewTimer(time.Second)
	f.Step(999 * time.Millisecond)
	assert.False(t, fired(c), "timer fired before its deadline")
	f.Step(time.Millisecond)
	assert.True(t, fired(c), "timer did not fire at its deadline")
	assert.Equal(t, epoch.Add(time.Second), f.Now())
	assert.Empty(t, f.Pending())
}

func TestFiresTimersInDeadlineOrder(t *testing.T) {
	c := clock.NewFake(epoch)
	late, _ := c.NewTimer(3 * time.Second)
	early, _ := c.NewTimer(time.Second)
	never, stop := c.NewTimer(2 * time.Second)
	require.Len(t, c.Pending(), 3)
	assert.True(t, stop(), "stop of a pending timer")
	assert.False(t, stop(), "second stop")

	c.Step(time.Second)
	assert.Equal(t, epoch.Add(time.Second), receive(t, early))
	assert.Len(t, c.Pending(), 1)
	c.Step(5 * time.Second)
	assert.Equal(t, epoch.Add(6*time.Second), receive(t, late))
	assert.Empty(t, c.Pending())
	assert.False(t, fired(never), "a stopped timer fired")
}

func TestSetMovesToAnInstant(t *testing.T) {
	f := clock.NewFake(epoch)
	c, _ := f.NewTimer(time.Minute)
	f.Set(epoch.Add(30 * time.Second))
	assert.False(t, fired(c))
	f.Set(epoch.Add(time.Hour))
	assert.Equal(t, epoch.Add(time.Hour), receive(t, c))
	f.Set(epoch)
	assert.Equal(t, epoch.Add(time.Hour), f.Now(), "Set to an earlier time moved the clock back")
}

func TestZeroTimerFiresAtOnce(t *testing.T) {
	f := clock.NewFake(epoch)
	c, stop := f.NewTimer(0)
	assert.Equal(t, epoch, receive(t, c), "a timer of 0 fires at once")
	assert.False(t, stop(), "stop of a fired timer reported success")
}

func TestStopPreventsFiring(t *testing.T) {
	f := clock.NewFake(epoch)
	c, stop := f.NewTimer(time.Second)
	assert.Equal(t, []time.Duration{time.Second}, f.Pending())
	assert.True(t, stop())
	assert.False(t, stop(), "second stop reported success")
	f.Step(time.Hour)
	assert.False(t, fired(c))
	assert.Empty(t, f.Pending())
}

func TestStepNeverGoesBackwards(t *testing.T) {
	f := clock.NewFake(epoch)
	f.Step(-time.Hour)
	assert.Equal(t, epoch, f.Now())
}

func TestWaitForSeesTimerFromAnotherGoroutine(t *testing.T) {
	f := clock.NewFake(epoch)
	done := make(chan time.Time)
	go func() {
		c, _ := f.NewTimer(3 * time.Second)
		done <- <-c
	}()
	require.NoError(t, f.WaitForTimer(testContext(t), 3*time.Second))
	f.Step(3 * time.Second)
	assert.Equal(t, epoch.Add(3*time.Second), receive(t, done))
}

func TestWaitForTimers(t *testing.T) {
	c := clock.NewFake(epoch)
	done := make(chan error, 1)
	go func() { done <- c.WaitForTimers(testContext(t), 2) }()
	c.NewTimer(time.Second)
	c.NewTimer(time.Second)
	require.NoError(t, receive(t, done))

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := c.WaitForTimers(ctx, 3)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "waiting for 3 timers, 2 timers pending")
}

func TestRealClockTimer(t *testing.T) {
	var c clock.Real
	before := c.Now()
	ch, _ := c.NewTimer(time.Millisecond)
	got := receive(t, ch)
	assert.False(t, got.Before(before.Add(time.Millisecond)))
	_, stop := c.NewTimer(time.Hour)
	assert.True(t, stop())
}

func TestOrDefaultsToReal(t *testing.T) {
	assert.Equal(t, clock.Real{}, clock.Or(nil))
	f := clock.NewFake(epoch)
	assert.Same(t, f, clock.Or(f))
}

func Example() {
	c := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	fired, _ := c.NewTimer(800 * time.Millisecond)
	fmt.Println("pending:", c.Pending())
	c.Step(time.Second)
	fmt.Println("fired at:", (<-fired).Format(time.TimeOnly+".000"))
	// Output:
	// pending: [800ms]
	// fired at: 00:00:01.000
}
