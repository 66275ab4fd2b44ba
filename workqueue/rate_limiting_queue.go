package workqueue

// AddRateLimited adds item after the delay the queue's RateLimiter assigns
// to one more failure of it: the retry path of a worker. The failure is
// counted (NumRequeues grows, and Metrics.Retries) even if the item is
// already waiting. After ShutDown it does nothing and records no failure.
func (q *Queue[K]) AddRateLimited(item K) {
	if q.ShuttingDown() {
		q.mu.Lock()
		q.stats.dropped++
		q.mu.Unlock()
		return
	}
	// Ask the limiter outside q.mu: it has its own lock, and a user's limiter
	// must not be able to deadlock the queue.
	delay := q.limiter.When(item)
	q.mu.Lock()
	q.countRetryLocked()
	q.mu.Unlock()
	q.AddAfter(item, delay)
}

// Forget tells the RateLimiter that item has been processed successfully:
// its backoff starts afresh and NumRequeues returns 0. It does not remove the
// item from the queue. Call it whenever processing succeeds, or when a worker
// gives up retrying.
func (q *Queue[K]) Forget(item K) {
	q.limiter.Forget(item)
}

// NumRequeues returns how many times item has been retried with
// AddRateLimited since it was last forgotten.
func (q *Queue[K]) NumRequeues(item K) int {
	return q.limiter.NumRequeues(item)
}
