package replicaset

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/selector"
)

// sync reconciles the ReplicaSet key: claim its pods, create or delete
// pods until it has spec.replicas active ones, write its status.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	rs, err := c.rss.Lister().Namespace(ns).Get(name)
	if err != nil {
		c.expect.Forget(key) // deleted: its pods go with the garbage collector
		return nil
	}
	sel, err := rs.Spec.Selector.Selector()
	if err != nil {
		c.loop.Logger().Warn("invalid selector", "replicaset", key, "err", err)
		return nil
	}
	// Read the expectations before the pods: a creation seen between the
	// two reads is then in the list, never missing from both.
	needsSync := c.expect.Satisfied(key)

	active, terminating, err := c.claimPods(ctx, rs, sel)
	if err != nil {
		return err
	}
	var manageErr error
	if needsSync && rs.DeletionTimestamp == nil {
		manageErr = c.manage(ctx, key, rs, active)
	}
	now := c.env.Clock.Now()
	status := calculateStatus(rs, active, terminating, manageErr, now)
	updated, err := c.writeStatus(ctx, rs, status)
	if err != nil {
		return err
	}
	if manageErr != nil {
		return manageErr
	}
	// Pods ready but not yet available turn available with time alone:
	// come back when the first of them does.
	if updated.Spec.MinReadySeconds > 0 && updated.Status.ReadyReplicas != updated.Status.AvailableReplicas {
		c.loop.AddAfter(key, nextAvailable(active, updated.Spec.MinReadySeconds, now))
	}
	return nil
}

// claimPods returns the active and the terminating pods that belong to
// rs, adopting matching orphans and releasing owned pods that stopped
// matching.
func (c *Controller) claimPods(ctx context.Context, rs *api.ReplicaSet, sel selector.Labels) (active, terminating []*api.Pod, err error) {
	candidates := kit.OwnedOrOrphans(c.pods, rs.Namespace, rs.UID)
	var live, dying []*api.Pod
	for _, p := range candidates {
		switch {
		case api.IsPodActive(p):
			live = append(live, p)
		case api.IsPodTerminating(p) && api.ControllerOf(&p.ObjectMeta) != nil && sel.Matches(p.Labels):
			dying = append(dying, p)
		}
	}
	owner := kit.Owner{Meta: &rs.ObjectMeta, APIVersion: "apps/v1", Kind: "ReplicaSet", Selector: sel}
	active, err = kit.Claim(ctx, c.env.Client, owner, podTarget, live)
	if err != nil {
		return nil, nil, fmt.Errorf("claim pods: %w", err)
	}
	return active, dying, nil
}

// podTarget is where a pod lives on the server.
func podTarget(p *api.Pod) kit.Target {
	return kit.Target{Resource: "pods", Namespace: p.Namespace, Name: p.Name}
}
