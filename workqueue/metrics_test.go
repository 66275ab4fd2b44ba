package workqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMetricsTimes(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.Add("a")
	clock.Step(2 * time.Second)
	q.Add("b")
	clock.Step(time.Second)

	assert.Equal(t, "a", mustGet(t, q)) // waited 3s
	clock.Step(time.Second)
	assert.Equal(t, "b", mustGet(t, q)) // waited 2s

	clock.Step(5 * time.Second)
	m := q.Metrics()
	assert.Equal(t, 2, m.Processing)
	assert.Equal(t, 11*time.Second, m.UnfinishedWork, "a for 6s, b for 5s")
	assert.Equal(t, 6*time.Second, m.LongestRunning)
	assert.Equal(t, DurationStats{Count: 2, Sum: 5 * time.Second, Max: 3 * time.Second}, m.WaitTime)
	assert.Equal(t, 2500*time.Millisecond, m.WaitTime.Mean())

	q.Done("a") // worked 6s
	clock.Step(time.Second)
	q.Done("b") // worked 6s
	m = q.Metrics()
	assert.Equal(t, DurationStats{Count: 2, Sum: 12 * time.Second, Max: 6 * time.Second}, m.WorkTime)
	assert.Zero(t, m.UnfinishedWork)
	assert.Zero(t, m.LongestRunning)
	assert.Zero(t, m.Processing)
}

func TestMetricsWaitTimeOfReAddStartsAtTheAdd(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.Add("a")
	mustGet(t, q)
	q.Add("a") // re-added while processing
	clock.Step(3 * time.Second)
	q.Done("a")
	clock.Step(time.Second)
	mustGet(t, q)
	assert.Equal(t, 4*time.Second, q.Metrics().WaitTime.Max, "wait time includes waiting for the first processing to end")
}

func TestMetricsDepthCountsDueDelayedItems(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.AddAfter("a", time.Second)
	q.AddAfter("b", time.Minute)
	assert.Equal(t, Metrics{Delayed: 2}, q.Metrics())
	clock.Step(time.Second)
	m := q.Metrics()
	assert.Equal(t, 1, m.Depth)
	assert.Equal(t, 1, m.Delayed)
	assert.Equal(t, uint64(1), m.Adds, "a became due: one add")
}

func TestDurationStatsMeanOfNothing(t *testing.T) {
	assert.Zero(t, DurationStats{}.Mean())
}
