package workqueue

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/clocktest"
)

// The repository's shared test clock drives a queue too.
var _ Clock = (*clocktest.Fake)(nil)

func TestFakeClockFiresTimersInDeadlineOrder(t *testing.T) {
	c := NewFakeClock(epoch)
	late, _ := c.NewTimer(3 * time.Second)
	early, _ := c.NewTimer(time.Second)
	never, stop := c.NewTimer(2 * time.Second)
	require.Equal(t, 3, c.PendingTimers())
	assert.True(t, stop(), "stop of a pending timer")
	assert.False(t, stop(), "second stop")

	c.Step(time.Second)
	assert.Equal(t, epoch.Add(time.Second), receive(t, early))
	assert.Equal(t, 1, c.PendingTimers())
	c.Step(5 * time.Second)
	assert.Equal(t, epoch.Add(6*time.Second), receive(t, late))
	assert.Equal(t, 0, c.PendingTimers())
	select {
	case v := <-never:
		assert.Fail(t, "a stopped timer fired", "at %v", v)
	default:
	}
}

func TestFakeClockImmediateAndBackwards(t *testing.T) {
	c := NewFakeClock(epoch)
	ch, stop := c.NewTimer(0)
	assert.Equal(t, epoch, receive(t, ch), "a timer of 0 fires at once")
	assert.False(t, stop())
	c.Step(-time.Hour)
	assert.Equal(t, epoch, c.Now(), "the fake clock never goes backwards")
}

func TestFakeClockWaitForTimers(t *testing.T) {
	c := NewFakeClock(epoch)
	done := make(chan error, 1)
	go func() { done <- c.WaitForTimers(testContext(t), 2) }()
	c.NewTimer(time.Second)
	c.NewTimer(time.Second)
	require.NoError(t, receive(t, done))

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := c.WaitForTimers(ctx, 3)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "waiting for 3 timers, 2 pending")
}

func TestRealClockTimer(t *testing.T) {
	var c RealClock
	before := c.Now()
	ch, _ := c.NewTimer(time.Millisecond)
	fired := receive(t, ch)
	assert.False(t, fired.Before(before.Add(time.Millisecond)))
	_, stop := c.NewTimer(time.Hour)
	assert.True(t, stop())
}
