package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/workqueue"
)

// Writer is what the controller needs of the REST client to change the
// cluster: *rest.Client has it.
type Writer interface {
	Post() *rest.Request
	Put() *rest.Request
	Delete() *rest.Request
}

// Controller keeps every ConfigMap labelled kubecache.dev/mirror=true
// copied into every namespace, and removes the copies when the source goes
// (or loses the label).
//
// It reads only from informers (a ConfigMap informer and a metadata-only
// Namespace informer) and writes through the REST client. Its handlers do
// nothing but put the key of an affected source on a workqueue; workers
// take keys off the queue and reconcile each one against the caches.
type Controller struct {
	client     Writer
	configMaps *informer.Informer[*ConfigMap]
	namespaces *informer.Informer[*meta.PartialObjectMetadata]
	// regs are the handlers' registrations: the controller starts work
	// only once its own handlers have seen the caches' contents.
	regs       []informer.Syncer
	queue      *workqueue.Queue[string]
	log        *slog.Logger
	maxRetries int
}

// copiesIndex indexes copies by the key of their source.
const copiesIndex = "mirror-of"

// Options configure a Controller.
type Options struct {
	// Logger receives what the controller does; nil discards.
	Logger *slog.Logger
	// MaxRetries is how many times a failing key is retried (with
	// backoff) before it is dropped until its next change; zero means 5.
	MaxRetries int
	// Queue is the workqueue; nil makes one with the default rate limiter.
	Queue *workqueue.Queue[string]
}

// NewController builds the controller on the factory's informers (which
// the caller runs) and registers its handlers.
func NewController(client Writer, f *informer.Factory, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 5
	}
	if opts.Queue == nil {
		opts.Queue = workqueue.New(workqueue.Options[string]{})
	}
	cms, err := informer.For(f, informer.Spec[*ConfigMap]{
		Source:    reflector.Source{Resource: "configmaps"},
		Transform: informer.DropManagedFields[*ConfigMap](),
	})
	if err != nil {
		return nil, err
	}
	// Only names and deletion state of namespaces matter: ask for
	// metadata only.
	nss, err := informer.For(f, informer.Spec[*meta.PartialObjectMetadata]{Source: reflector.Source{Resource: "namespaces"}})
	if err != nil {
		return nil, err
	}
	err = cms.Indexer().AddIndexers(cache.Indexers[*ConfigMap]{copiesIndex: func(cm *ConfigMap) ([]string, error) {
		if src, ok := copyOf(cm); ok {
			return []string{src}, nil
		}
		return nil, nil
	}})
	if err != nil && !errors.Is(err, cache.ErrIndexExists) {
		return nil, fmt.Errorf("index copies: %w", err)
	}
	c := &Controller{client: client, configMaps: cms, namespaces: nss, queue: opts.Queue, log: opts.Logger, maxRetries: opts.MaxRetries}

	cmReg, err := cms.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(cm *ConfigMap, _ bool) { c.enqueueFor(cm) },
		UpdateFunc: func(old, cm *ConfigMap) {
			c.enqueueFor(old) // a source that lost its label
			c.enqueueFor(cm)
		},
		DeleteFunc: func(cm *ConfigMap, _ bool) { c.enqueueFor(cm) },
	}, informer.HandlerOptions{Name: "configmap-mirror"})
	if err != nil {
		return nil, err
	}
	nsReg, err := nss.AddEventHandler(informer.HandlerFuncs[*meta.PartialObjectMetadata]{
		// A new namespace needs a copy of every source.
		AddFunc: func(*meta.PartialObjectMetadata, bool) { c.enqueueAllSources() },
	}, informer.HandlerOptions{Name: "configmap-mirror"})
	if err != nil {
		return nil, err
	}
	c.regs = []informer.Syncer{cmReg, nsReg}
	return c, nil
}

// enqueueFor queues the source a changed ConfigMap concerns: itself if it
// is a source, its source if it is a copy.
func (c *Controller) enqueueFor(cm *ConfigMap) {
	if isSource(cm) {
		c.queue.Add(meta.Key(cm))
	}
	if src, ok := copyOf(cm); ok {
		c.queue.Add(src)
	}
}

// enqueueAllSources queues every source the cache holds.
func (c *Controller) enqueueAllSources() {
	for _, cm := range c.configMaps.Indexer().List() {
		if isSource(cm) {
			c.queue.Add(meta.Key(cm))
		}
	}
}

// Run waits for the caches, then runs workers until ctx is cancelled. It
// returns once every worker has stopped. The informers must be running
// (Factory.Run). A Controller runs once: Run shuts its queue down.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer c.queue.ShutDown()
	if err := informer.WaitForCacheSync(ctx, c.regs...); err != nil {
		return fmt.Errorf("configmap-mirror: %w", err)
	}
	c.log.Info("caches synced; starting workers", "workers", workers)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() { c.work(ctx) })
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// work takes keys off the queue until it shuts down.
func (c *Controller) work(ctx context.Context) {
	for {
		key, err := c.queue.Get(ctx)
		if err != nil {
			return // shut down, or ctx cancelled
		}
		c.processOne(ctx, key)
	}
}

// processOne reconciles one key and decides what happens to it next:
// forget it on success, retry it with backoff on failure, drop it after
// MaxRetries (a later change of the source queues it again).
func (c *Controller) processOne(ctx context.Context, key string) {
	defer c.queue.Done(key)
	err := c.reconcile(ctx, key)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case ctx.Err() != nil:
		// Shutting down: the next leader or run starts from the caches.
	case c.queue.NumRequeues(key) < c.maxRetries:
		c.log.Warn("reconcile failed; retrying", "source", key, "retry", c.queue.NumRequeues(key)+1, "err", err)
		c.queue.AddRateLimited(key)
	default:
		c.log.Error("reconcile failed; giving up until the source changes", "source", key, "err", err)
		c.queue.Forget(key)
	}
}
