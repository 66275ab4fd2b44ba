package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// reconcile makes the cluster match what one source asks for. key is the
// source's "namespace/name"; the source may be gone, or no longer
// labelled. It reads only the caches, writes only what differs, and is
// safe to run again and again: that is what lets the workqueue retry it.
func (c *Controller) reconcile(ctx context.Context, key string) error {
	srcNS, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return fmt.Errorf("bad key %q: %w", key, err)
	}
	src, err := c.configMaps.Lister().Namespace(srcNS).Get(name)
	if err != nil || !isSource(src) {
		// The source is gone or no longer wants copies: remove them.
		return c.removeCopies(ctx, key)
	}

	var errs []error
	for _, ns := range c.namespaces.Lister().List(selector.Labels{}) {
		target := ns.Name
		if target == srcNS || ns.DeletionTimestamp != nil {
			continue // the source's own namespace; a namespace going away
		}
		existing, err := c.configMaps.Lister().Namespace(target).Get(name)
		switch {
		case errors.Is(err, cache.ErrNotFound):
			errs = append(errs, c.create(ctx, desiredCopy(src, target)))
		case err != nil:
			errs = append(errs, err)
		default:
			if of, ok := copyOf(existing); !ok || of != key {
				// Someone else's ConfigMap: never overwrite it. Retrying
				// would not help; its deletion queues the source again.
				c.log.Warn("name taken; not mirroring there", "source", key, "namespace", target)
				continue
			}
			if !sameContent(existing, src) {
				errs = append(errs, c.update(ctx, existing, src))
			}
		}
	}
	return errors.Join(errs...)
}

// removeCopies deletes every copy of the source key.
func (c *Controller) removeCopies(ctx context.Context, key string) error {
	copies, err := c.configMaps.Indexer().ByIndex(copiesIndex, key)
	if err != nil {
		return err
	}
	var errs []error
	for _, cp := range copies {
		err := c.client.Delete().Namespace(cp.Namespace).Resource("configmaps").Name(cp.Name).Do(ctx).Error()
		if err != nil && !rest.IsNotFound(err) {
			errs = append(errs, err)
			continue
		}
		c.log.Info("deleted copy", "source", key, "namespace", cp.Namespace)
	}
	return errors.Join(errs...)
}

// create writes a new copy. AlreadyExists means the cache is behind: the
// error makes the workqueue retry once the cache has caught up.
func (c *Controller) create(ctx context.Context, cp *ConfigMap) error {
	err := c.client.Post().Namespace(cp.Namespace).Resource("configmaps").Body(cp).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("create %s/%s: %w", cp.Namespace, cp.Name, err)
	}
	c.log.Info("created copy", "source", cp.Annotations[CopyOfAnnotation], "namespace", cp.Namespace)
	return nil
}

// update rewrites a copy whose content is out of date. It sends the
// resourceVersion it read, so a copy changed meanwhile is not overwritten
// blindly: the server answers 409 Conflict and the key is retried.
func (c *Controller) update(ctx context.Context, existing, src *ConfigMap) error {
	cp := desiredCopy(src, existing.Namespace)
	cp.ResourceVersion = existing.ResourceVersion
	cp.UID = existing.UID
	err := c.client.Put().Namespace(cp.Namespace).Resource("configmaps").Name(cp.Name).Body(cp).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("update %s/%s: %w", cp.Namespace, cp.Name, err)
	}
	c.log.Info("updated copy", "source", cp.Annotations[CopyOfAnnotation], "namespace", cp.Namespace)
	return nil
}
