package workqueue

import "time"

// Metrics is a snapshot of a queue's state and its counters since New, taken
// by Queue.Metrics. Counters only grow; the gauges (Depth, Delayed,
// Processing, UnfinishedWork, LongestRunning) describe the instant of the
// snapshot.
type Metrics struct {
	// Depth is the number of items ready for Get (what Len returns).
	Depth int
	// Delayed is the number of items waiting for an AddAfter or
	// AddRateLimited delay to expire.
	Delayed int
	// Processing is the number of items handed out by Get and not yet Done.
	Processing int

	// Adds counts accepted adds: Add calls, AddAfter calls with no delay,
	// and delayed items whose time came.
	Adds uint64
	// Merged counts the adds that found the item already waiting, and so
	// were absorbed by de-duplication.
	Merged uint64
	// Retries counts AddRateLimited calls accepted.
	Retries uint64
	// Dropped counts adds refused because the queue was shut down, plus the
	// delayed items ShutDown discarded.
	Dropped uint64

	// WaitTime is the time items spent waiting before Get handed them out:
	// from the add that made them due (or their delay's expiry) to Get.
	// WaitTime.Count is the number of items handed out.
	WaitTime DurationStats
	// WorkTime is the time from Get to Done. WorkTime.Count is the number of
	// items finished.
	WorkTime DurationStats

	// UnfinishedWork is the time items still processing have been processing,
	// added up: a large value with no Done in sight means stuck workers.
	UnfinishedWork time.Duration
	// LongestRunning is how long the oldest item still processing has been
	// processing.
	LongestRunning time.Duration
}

// DurationStats summarises a set of durations.
type DurationStats struct {
	Count uint64
	Sum   time.Duration
	Max   time.Duration
}

// Mean returns Sum/Count, or 0 when Count is 0.
func (s DurationStats) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Sum / time.Duration(s.Count)
}

// record adds one duration.
func (s *DurationStats) record(d time.Duration) {
	s.Count++
	s.Sum += d
	s.Max = max(s.Max, d)
}

// stats are the counters a Queue keeps for Metrics, guarded by the queue's
// mutex.
type stats struct {
	adds, merged, retries, dropped uint64
	waitTime, workTime             DurationStats
}

// Metrics returns a snapshot of the queue's state and counters. Delayed items
// already due are counted as ready. It is safe to call at any time, including
// after ShutDown.
func (q *Queue[K]) Metrics() Metrics {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	q.promoteLocked(now)
	m := Metrics{
		Depth:      q.ready.len(),
		Delayed:    q.delayed.len(),
		Processing: len(q.processing),
		Adds:       q.stats.adds,
		Merged:     q.stats.merged,
		Retries:    q.stats.retries,
		Dropped:    q.stats.dropped,
		WaitTime:   q.stats.waitTime,
		WorkTime:   q.stats.workTime,
	}
	for _, start := range q.processing {
		running := now.Sub(start)
		m.UnfinishedWork += running
		m.LongestRunning = max(m.LongestRunning, running)
	}
	return m
}
