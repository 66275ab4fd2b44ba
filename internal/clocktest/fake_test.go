package clocktest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/internal/clocktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestTimerFiresOnlyWhenAdvancedPastDeadline(t *testing.T) {
	f := clocktest.New(epoch)
	c, _ := f.NewTimer(time.Second)
	f.Advance(999 * time.Millisecond)
	assert.False(t, fired(c), "timer fired before its deadline")
	f.Advance(time.Millisecond)
	assert.True(t, fired(c), "timer did not fire at its deadline")
	assert.Equal(t, epoch.Add(time.Second), f.Now())
	assert.Empty(t, f.Pending())
}

func TestZeroTimerFiresAtOnce(t *testing.T) {
	f := clocktest.New(epoch)
	c, stop := f.NewTimer(0)
	assert.True(t, fired(c))
	assert.False(t, stop(), "stop of a fired timer reported success")
}

func TestStopPreventsFiring(t *testing.T) {
	f := clocktest.New(epoch)
	c, stop := f.NewTimer(time.Second)
	assert.Equal(t, []time.Duration{time.Second}, f.Pending())
	assert.True(t, stop())
	assert.False(t, stop(), "second stop reported success")
	f.Advance(time.Hour)
	assert.False(t, fired(c))
	assert.Empty(t, f.Pending())
}

func TestAdvanceToNextFiresEarliest(t *testing.T) {
	f := clocktest.New(epoch)
	late, _ := f.NewTimer(time.Minute)
	early, _ := f.NewTimer(time.Second)
	moved, ok := f.AdvanceToNext()
	require.True(t, ok)
	assert.Equal(t, time.Second, moved)
	assert.True(t, fired(early))
	assert.False(t, fired(late))
	assert.Equal(t, []time.Duration{time.Minute}, f.Pending())

	_, ok = f.AdvanceToNext()
	require.True(t, ok)
	assert.True(t, fired(late))
	_, ok = f.AdvanceToNext()
	assert.False(t, ok, "AdvanceToNext with no timers reported a move")
}

func TestAdvanceNeverGoesBackwards(t *testing.T) {
	f := clocktest.New(epoch)
	f.Advance(-time.Hour)
	assert.Equal(t, epoch, f.Now())
}

func TestWaitForSeesTimerFromAnotherGoroutine(t *testing.T) {
	f := clocktest.New(epoch)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan time.Time)
	go func() {
		c, _ := f.NewTimer(3 * time.Second)
		done <- <-c
	}()
	require.NoError(t, f.WaitForTimer(ctx, 3*time.Second))
	f.Advance(3 * time.Second)
	assert.Equal(t, epoch.Add(3*time.Second), <-done)
}

func TestWaitForHonoursContext(t *testing.T) {
	f := clocktest.New(epoch)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := f.WaitForTimers(ctx, 1)
	assert.ErrorIs(t, err, context.Canceled)
}

func Example() {
	clock := clocktest.New(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	c, _ := clock.NewTimer(800 * time.Millisecond)
	fmt.Println("pending:", clock.Pending())
	clock.Advance(time.Second)
	fmt.Println("fired at:", (<-c).Format(time.TimeOnly+".000"))
	// Output:
	// pending: [800ms]
	// fired at: 00:00:01.000
}
