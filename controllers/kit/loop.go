package kit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/workqueue"
)

// MaxRetries is how many times a Loop retries a failing key before it
// drops it until the key's next change (the real controllers' figure).
const MaxRetries = 15

// conflictRecheck is when a key whose reconcile lost a race (409
// Conflict, AlreadyExists) is looked at again if no event brought it back
// sooner.
const conflictRecheck = time.Second

// Loop drains a work queue of keys into a reconcile function: the shape of
// every controller. Handlers registered with Watch only add keys; Run's
// workers take one key at a time, so a key is never reconciled by two
// workers at once, and a key added while it is reconciled is reconciled
// again afterwards.
type Loop struct {
	name      string
	queue     *workqueue.Queue[string]
	reconcile func(ctx context.Context, key string) error
	delays    *delayer
	log       *slog.Logger

	// mu guards syncers, which Run waits for.
	mu      sync.Mutex
	syncers []informer.Syncer
}

// NewLoop returns a Loop named name (the controller's name, used in logs
// and handler names) that calls reconcile for each key.
func NewLoop(env Env, name string, reconcile func(ctx context.Context, key string) error) *Loop {
	env = env.WithDefaults()
	q := workqueue.New(workqueue.Options[string]{})
	return &Loop{
		name:      name,
		queue:     q,
		reconcile: reconcile,
		delays:    newDelayer(env.Clock, q.Add),
		log:       env.Logger.With("controller", name),
	}
}

// Name returns the Loop's name.
func (l *Loop) Name() string { return l.name }

// Add queues key now.
func (l *Loop) Add(key string) { l.queue.Add(key) }

// AddAfter queues key once d has passed on the cluster's clock (Env.Clock).
// A key already waiting keeps the earlier of its two times.
func (l *Loop) AddAfter(key string, d time.Duration) {
	if d <= 0 {
		l.queue.Add(key)
		return
	}
	l.delays.add(key, l.delays.clock.Now().Add(d))
}

// AddAt queues key when the cluster's clock reaches at. A time given as
// an instant, not a delay, stays right however far the clock has moved
// by the time the timer is set.
func (l *Loop) AddAt(key string, at time.Time) {
	if !at.After(l.delays.clock.Now()) {
		l.queue.Add(key)
		return
	}
	l.delays.add(key, at)
}

// Retry queues key again after the work queue's backoff (wall clock),
// for work a reconcile handed to a goroutine of its own that failed.
func (l *Loop) Retry(key string) { l.queue.AddRateLimited(key) }

// Logger returns the Loop's logger.
func (l *Loop) Logger() *slog.Logger { return l.log }

// Watch registers a handler on inf that queues keys(obj) for every
// object added, changed (the old and the new object's keys) or deleted.
// Run waits for the handler to see the informer's first list.
func Watch[T meta.Object](l *Loop, inf *informer.Informer[T], keys func(obj T) []string) error {
	add := func(obj T) {
		for _, k := range keys(obj) {
			l.queue.Add(k)
		}
	}
	return WatchWith(l, inf, informer.HandlerFuncs[T]{
		AddFunc:    func(obj T, _ bool) { add(obj) },
		UpdateFunc: func(old, obj T) { add(old); add(obj) },
		DeleteFunc: func(obj T, _ bool) { add(obj) },
	})
}

// WatchWith registers h on inf, for controllers whose handlers do more
// than queue keys (observe expectations, say). Run waits for it to sync.
func WatchWith[T meta.Object](l *Loop, inf *informer.Informer[T], h informer.Handler[T]) error {
	reg, err := inf.AddEventHandler(h, informer.HandlerOptions{Name: l.name})
	if err != nil {
		return fmt.Errorf("%s: watch %s: %w", l.name, inf.Name(), err)
	}
	l.mu.Lock()
	l.syncers = append(l.syncers, reg)
	l.mu.Unlock()
	return nil
}

// WaitFor makes Run wait for informers the Loop reads but does not
// watch (a lister consulted during reconcile) to sync as well.
func (l *Loop) WaitFor(infs ...informer.Syncer) {
	l.mu.Lock()
	l.syncers = append(l.syncers, infs...)
	l.mu.Unlock()
}

// SelfKey is the key function of an object that is its own work item:
// "namespace/name".
func SelfKey[T meta.Object](obj T) []string { return []string{meta.Key(obj)} }

// Run waits until every handler has seen its informer's contents, then
// reconciles keys with workers goroutines until ctx is cancelled. It
// returns once every goroutine it started has stopped. A Loop runs once.
func (l *Loop) Run(ctx context.Context, workers int) error {
	defer l.queue.ShutDown()
	l.mu.Lock()
	syncers := l.syncers
	l.mu.Unlock()
	if err := informer.WaitForCacheSync(ctx, syncers...); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s: %w", l.name, err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { l.delays.run(ctx) })
	for range max(workers, 1) {
		wg.Go(func() { l.work(ctx) })
	}
	<-ctx.Done()
	l.queue.ShutDown()
	wg.Wait()
	return nil
}

// work reconciles keys until the queue shuts down.
func (l *Loop) work(ctx context.Context) {
	for {
		key, err := l.queue.Get(ctx)
		if err != nil {
			return
		}
		l.processOne(ctx, key)
	}
}

// processOne reconciles key and decides what happens to it next: forget
// it on success, retry it with backoff on failure, drop it after
// MaxRetries.
func (l *Loop) processOne(ctx context.Context, key string) {
	defer l.queue.Done(key)
	err := l.reconcile(ctx, key)
	switch {
	case err == nil:
		l.queue.Forget(key)
	case ctx.Err() != nil:
	case rest.IsConflict(err) || rest.IsAlreadyExists(err):
		// The cache is behind the server: the newer object's event is on
		// its way and queues the key again. The delayed add is a safety
		// net, not the retry: a conflict is no failure to back off from.
		l.log.Debug("reconcile raced with another writer; the next event retries it", "key", key, "err", err)
		l.queue.Forget(key)
		l.queue.AddAfter(key, conflictRecheck)
	case l.queue.NumRequeues(key) < MaxRetries:
		l.log.Info("reconcile failed; retrying", "key", key, "err", err)
		l.queue.AddRateLimited(key)
	default:
		l.log.Warn("reconcile failed; dropping the key until it changes", "key", key, "err", err)
		l.queue.Forget(key)
	}
}
