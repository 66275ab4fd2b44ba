package workqueue

import "time"

// The metrics a Queue pushes to Options.Metrics as it works, labelled
// name=<Options.Name> (the names of client-go's workqueue metrics, with
// the kubecache_ prefix):
//
//	kubecache_workqueue_depth                   items ready for Get, after each change
//	kubecache_workqueue_adds_total              accepted adds (Metrics.Adds)
//	kubecache_workqueue_queue_duration_seconds  how long each item waited before Get
//	kubecache_workqueue_work_duration_seconds   how long each item took from Get to Done
//	kubecache_workqueue_retries_total           AddRateLimited calls accepted
//
// Without a Sink nothing is pushed; Queue.Metrics returns the same
// counters as a snapshot either way. The Sink is called with the queue's
// lock held, so it must not call back into the queue.

// The names of the queue's metrics.
const (
	metricDepth         = "kubecache_workqueue_depth"
	metricAdds          = "kubecache_workqueue_adds_total"
	metricQueueDuration = "kubecache_workqueue_queue_duration_seconds"
	metricWorkDuration  = "kubecache_workqueue_work_duration_seconds"
	metricRetries       = "kubecache_workqueue_retries_total"
)

// countAddLocked counts one accepted add.
func (q *Queue[K]) countAddLocked() {
	q.stats.adds++
	if q.sink != nil {
		q.sink.Add(metricAdds, 1, "name", q.name)
	}
}

// depthChangedLocked reports the number of ready items.
func (q *Queue[K]) depthChangedLocked() {
	if q.sink != nil {
		q.sink.Set(metricDepth, float64(q.ready.len()), "name", q.name)
	}
}

// recordWaitLocked records how long an item waited before Get.
func (q *Queue[K]) recordWaitLocked(d time.Duration) {
	q.stats.waitTime.record(d)
	if q.sink != nil {
		q.sink.Observe(metricQueueDuration, d.Seconds(), "name", q.name)
	}
}

// recordWorkLocked records how long an item took from Get to Done.
func (q *Queue[K]) recordWorkLocked(d time.Duration) {
	q.stats.workTime.record(d)
	if q.sink != nil {
		q.sink.Observe(metricWorkDuration, d.Seconds(), "name", q.name)
	}
}

// countRetryLocked counts one accepted AddRateLimited.
func (q *Queue[K]) countRetryLocked() {
	q.stats.retries++
	if q.sink != nil {
		q.sink.Add(metricRetries, 1, "name", q.name)
	}
}
