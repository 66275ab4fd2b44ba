package disruption

import (
	"context"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
)

// staleDisruption reports whether p carries a True DisruptionTarget
// condition without being deleted, and how long until the condition is
// stale (StalePodDisruptionTimeout after it was set). A condition the
// kubelet set, or one on a finished pod, is never stale.
func (c *Controller) staleDisruption(p *api.Pod) (bool, time.Duration) {
	if p.DeletionTimestamp != nil {
		return false, 0
	}
	cond := p.Status.Condition(api.PodDisruptionTarget)
	if cond == nil || cond.Status != api.ConditionTrue || cond.Reason == api.ReasonTerminationByKubelet || api.IsPodTerminal(p) {
		return false, 0
	}
	return true, max(StalePodDisruptionTimeout-c.env.Clock.Now().Sub(cond.LastTransitionTime.Time), 0)
}

// syncStalePod sets the pod key's DisruptionTarget condition False once
// it is stale: an eviction marked the pod but its deletion never came.
func (c *Controller) syncStalePod(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	p, err := c.pods.Lister().Namespace(ns).Get(name)
	if err != nil {
		return nil // deleted
	}
	stale, after := c.staleDisruption(p)
	if !stale {
		return nil
	}
	if after > 0 {
		c.stale.AddAfter(key, after)
		return nil
	}
	conds := append([]api.PodCondition(nil), p.Status.Conditions...)
	for i := range conds {
		if conds[i].Type == api.PodDisruptionTarget {
			// The condition's observedGeneration is the pod's (pod
			// generation tracking is on by default).
			conds[i] = api.PodCondition{Type: api.PodDisruptionTarget, Status: api.ConditionFalse,
				ObservedGeneration: p.Generation, LastTransitionTime: meta.NewTime(c.env.Clock.Now())}
		}
	}
	// The merge patch replaces the whole list; the resourceVersion makes
	// it fail with a conflict if the pod changed since it was read.
	patch := map[string]any{
		"metadata": map[string]any{"resourceVersion": p.ResourceVersion},
		"status":   map[string]any{"conditions": conds},
	}
	return kit.MergePatch(ctx, c.env.Client, kit.Target{Resource: "pods", Namespace: ns, Name: name}, "status", patch, nil)
}
