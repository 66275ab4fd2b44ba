package workqueue_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubecache/kubecache/workqueue"
)

// A worker loop with retries: reconcile fails for "default/web" twice, so the
// worker retries it with a per-item backoff, while the other keys go ahead;
// after three successes the worker shuts the queue down and the loop ends.
func Example() {
	backoff, err := workqueue.NewItemExponentialBackoff[string](time.Millisecond, time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	q := workqueue.New(workqueue.Options[string]{RateLimiter: backoff})

	// An informer's handlers would add keys as objects change; a key added
	// twice before a worker takes it is reconciled once.
	q.Add("default/web")
	q.Add("default/db")
	q.Add("default/web")
	q.Add("kube-system/dns")

	failures := map[string]int{"default/web": 2}
	reconcile := func(key string) error {
		if failures[key] > 0 {
			failures[key]--
			return errors.New("backend not ready")
		}
		return nil
	}

	ctx := context.Background()
	synced := 0
	for {
		key, err := q.Get(ctx)
		if errors.Is(err, workqueue.ErrShutDown) {
			fmt.Println("queue shut down")
			break
		}
		if err := reconcile(key); err != nil {
			fmt.Printf("%s: %v (retry %d)\n", key, err, q.NumRequeues(key)+1)
			q.AddRateLimited(key) // back off: 1ms, then 2ms
		} else {
			fmt.Printf("%s: synced\n", key)
			q.Forget(key)
			if synced++; synced == 3 {
				q.ShutDown()
			}
		}
		q.Done(key)
	}
	m := q.Metrics()
	fmt.Printf("handed out %d, retried %d, de-duplicated %d\n", m.WaitTime.Count, m.Retries, m.Merged)

	// Output:
	// default/web: backend not ready (retry 1)
	// default/db: synced
	// kube-system/dns: synced
	// default/web: backend not ready (retry 2)
	// default/web: synced
	// queue shut down
	// handed out 5, retried 2, de-duplicated 1
}
