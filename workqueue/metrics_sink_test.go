package workqueue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/metrics"
)

func TestMetricsPushedToSink(t *testing.T) {
	var reg metrics.Registry
	clk := clock.NewFake(epoch)
	q := New(Options[string]{Clock: clk, Metrics: &reg, Name: "controller"})
	q.Add("a")
	q.Add("b")
	q.Add("a") // merged, still an add
	get := func(name string) metrics.Metric {
		t.Helper()
		m, ok := reg.Get(name, "name", "controller")
		require.True(t, ok, name)
		return m
	}
	assert.Equal(t, 3.0, get("kubecache_workqueue_adds_total").Value)
	assert.Equal(t, 2.0, get("kubecache_workqueue_depth").Value)

	clk.Step(2 * time.Second)
	assert.Equal(t, "a", mustGet(t, q))
	assert.Equal(t, 1.0, get("kubecache_workqueue_depth").Value)
	wait := get("kubecache_workqueue_queue_duration_seconds")
	assert.Equal(t, uint64(1), wait.Count)
	assert.Equal(t, 2.0, wait.Sum)

	clk.Step(500 * time.Millisecond)
	q.AddRateLimited("a")
	q.Done("a")
	work := get("kubecache_workqueue_work_duration_seconds")
	assert.Equal(t, uint64(1), work.Count)
	assert.Equal(t, 0.5, work.Sum)
	assert.Equal(t, 1.0, get("kubecache_workqueue_retries_total").Value)
}
