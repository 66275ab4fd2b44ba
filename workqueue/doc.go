// Package workqueue is the queue a controller's workers drain: typed,
// de-duplicating, with delayed and rate-limited adds for retries.
//
// # Where it sits
//
// It is the last step of the flow
//
//	socket → rest → watch → reflector → cache → informer → controller
//
// An informer's event handlers do not do the work themselves; they compute a
// key (usually "namespace/name") and Add it to a Queue. Workers Get keys, read
// the current object from the informer's cache, reconcile, and Done the key.
// Because the queue holds keys rather than events, ten updates to one object
// before a worker gets to it become one reconcile of its latest state.
//
// A worker loop with retries:
//
//	for {
//		key, err := q.Get(ctx)
//		if err != nil {
//			return // ErrShutDown, or ctx ended
//		}
//		if err := reconcile(ctx, key); err != nil && q.NumRequeues(key) < 5 {
//			q.AddRateLimited(key) // try again after a backoff
//		} else {
//			q.Forget(key) // success, or given up: reset the backoff
//		}
//		q.Done(key)
//	}
//
// # Guarantees
//
// A key added several times before a worker takes it is handed out once; a
// key is never held by two workers at once; a key added while a worker holds
// it is handed out again after Done. ShutDown stops new work; Get keeps
// handing out what is ready, then returns ErrShutDown; ShutDownWithDrain
// also waits for the workers to finish. The queue starts no goroutines.
//
// Ready keys of higher priority go first (AddWithPriority); AddInitial puts
// the keys of an informer's initial list at LowPriority, behind live
// changes, unless Options.InitialListFirst.
//
// # Files
//
//   - queue.go: Queue, Options, New; Add, Get, Done, Len, ShutDown,
//     ShutDownWithDrain — the de-duplicating core and how Gets park.
//   - fifo.go: the ring buffer holding ready items in order.
//   - priority.go: AddWithPriority, AddInitial, LowPriority, and the ready
//     list (one line per priority) behind Get.
//   - delaying.go: AddAfter and the min-heap of items waiting for their time.
//   - rate_limiter.go: RateLimiter and its implementations:
//     ItemExponentialBackoff (per item), TokenBucket (overall), MaxOf, and
//     NewDefaultRateLimiter.
//   - rate_limiting_queue.go: AddRateLimited, Forget, NumRequeues.
//   - metrics.go: Metrics, a snapshot of depth, adds, retries, wait time,
//     work time and unfinished work.
//   - metrics_sink.go: what a queue pushes to Options.Metrics as it
//     works (depth, adds, queue and work durations, retries).
//
// Time comes from Options.Clock (package clock): a test that injects a
// clock.Fake decides when delayed items fall due instead of sleeping.
package workqueue
