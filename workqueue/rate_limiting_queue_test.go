package workqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAddRateLimitedBacksOffPerItem(t *testing.T) {
	limiter, err := NewItemExponentialBackoff[string](time.Second, time.Minute)
	require.NoError(t, err)
	q, clock := newFakeQueue(t, limiter)

	q.AddRateLimited("a") // 1s
	q.AddRateLimited("b") // 1s
	q.AddRateLimited("a") // 2s, but a is already due at 1s: stays at 1s
	assert.Equal(t, 2, q.NumRequeues("a"))
	assert.Equal(t, 1, q.NumRequeues("b"))
	assert.Equal(t, 0, q.Len())

	clock.Step(time.Second)
	assert.Equal(t, "a", mustGet(t, q))
	assert.Equal(t, "b", mustGet(t, q))

	// a fails again: third failure, 4s.
	q.AddRateLimited("a")
	q.Done("a")
	clock.Step(4*time.Second - time.Nanosecond)
	assert.Equal(t, 0, q.Len(), "a must wait its full 4s backoff")
	clock.Step(time.Nanosecond)
	assert.Equal(t, "a", mustGet(t, q))

	// Success: Forget resets the backoff.
	q.Forget("a")
	q.Done("a")
	assert.Equal(t, 0, q.NumRequeues("a"))
	q.AddRateLimited("a")
	clock.Step(time.Second)
	assert.Equal(t, "a", mustGet(t, q), "after Forget the backoff is back to base")

	m := q.Metrics()
	assert.Equal(t, uint64(5), m.Retries, "Retries")
}

func TestAddRateLimitedWithDefaultLimiter(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.AddRateLimited("a")
	assert.Equal(t, 0, q.Len())
	clock.Step(DefaultBackoffBase)
	assert.Equal(t, "a", mustGet(t, q))
}

func TestAddRateLimitedAfterShutDown(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.ShutDown()
	q.AddRateLimited("a")
	clock.Step(time.Hour)
	assert.Equal(t, 0, q.Len())
	assert.Equal(t, 0, q.NumRequeues("a"), "a refused retry is not counted as a failure")
	m := q.Metrics()
	assert.Equal(t, uint64(1), m.Dropped)
	assert.Zero(t, m.Retries)
}

// TestWorkerRetriesUntilSuccess runs a worker whose first attempts fail, on
// the fake clock, and checks each retry waits its backoff.
func TestWorkerRetriesUntilSuccess(t *testing.T) {
	limiter, err := NewItemExponentialBackoff[string](100*time.Millisecond, time.Second)
	require.NoError(t, err)
	q, clock := newFakeQueue(t, limiter)
	ctx := testContext(t)

	failuresLeft := 3
	var attemptsAt []time.Duration
	worker := make(chan error, 1)
	go func() {
		for {
			key, err := q.Get(ctx)
			if err != nil {
				worker <- err
				return
			}
			attemptsAt = append(attemptsAt, clock.Now().Sub(epoch))
			if failuresLeft > 0 {
				failuresLeft--
				q.AddRateLimited(key)
			} else {
				q.Forget(key)
				q.ShutDown()
			}
			q.Done(key)
		}
	}()
	q.Add("a")
	for range 3 {
		// Wait for the worker to park on the retry's timer, then fire it.
		require.NoError(t, clock.WaitForTimers(ctx, 1))
		clock.Step(time.Second)
	}
	require.ErrorIs(t, receive(t, worker), ErrShutDown)
	// Each retry became due after its backoff (100ms, 200ms, 400ms) but the
	// test steps a whole second at a time.
	assert.Equal(t, []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}, attemptsAt)
	m := q.Metrics()
	assert.Equal(t, uint64(3), m.Retries)
	assert.Equal(t, uint64(4), m.WorkTime.Count)
	// Wait time runs from each retry's due time to the Get that took it.
	assert.Equal(t, (900+800+600)*time.Millisecond, m.WaitTime.Sum)
}
