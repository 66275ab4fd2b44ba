package deployment

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

// sync reconciles the Deployment key: the decision described in the
// package documentation.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cached, err := c.deployments.Lister().Namespace(ns).Get(name)
	if err != nil {
		return nil // deleted: its ReplicaSets go with the garbage collector
	}
	d := deepCopy(cached)

	if d.Spec.Selector.Empty() {
		c.event(d, api.EventWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			return c.writeStatus(ctx, d)
		}
		return nil
	}
	rsList, err := c.claimReplicaSets(ctx, d)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return c.syncStatusOnly(ctx, d, rsList)
	}
	if err := c.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return c.syncScale(ctx, d, rsList)
	}
	if c.isScalingEvent(d, rsList) {
		return c.syncScale(ctx, d, rsList)
	}
	switch d.StrategyType() {
	case api.RecreateStrategy:
		return c.rolloutRecreate(ctx, d, rsList)
	case api.RollingUpdateStrategy:
		return c.rolloutRolling(ctx, d, rsList)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// claimReplicaSets returns the ReplicaSets that belong to d, adopting
// matching orphans and releasing those that stopped matching.
func (c *Controller) claimReplicaSets(ctx context.Context, d *api.Deployment) ([]*api.ReplicaSet, error) {
	sel, err := d.Spec.Selector.Selector()
	if err != nil {
		return nil, nil
	}
	candidates := kit.OwnedOrOrphans(c.rss, d.Namespace, d.UID)
	owner := kit.Owner{Meta: &d.ObjectMeta, APIVersion: "apps/v1", Kind: "Deployment", Selector: sel}
	target := func(rs *api.ReplicaSet) kit.Target { return rsTarget(rs) }
	claimed, err := kit.Claim(ctx, c.env.Client, owner, target, candidates)
	if err != nil {
		return nil, err
	}
	out := make([]*api.ReplicaSet, len(claimed))
	for i, rs := range claimed {
		out[i] = deepCopyRS(rs)
	}
	return out, nil
}

// syncStatusOnly reports the status of a Deployment being deleted.
func (c *Controller) syncStatusOnly(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	newRS, oldRSs, err := c.replicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return c.syncDeploymentStatus(ctx, withNew(oldRSs, newRS), newRS, d)
}

// rsTarget is where a ReplicaSet lives on the server.
func rsTarget(rs *api.ReplicaSet) kit.Target {
	return kit.Target{Group: "apps", Version: "v1", Resource: "replicasets", Namespace: rs.Namespace, Name: rs.Name}
}

// withNew returns old with newRS appended when it exists.
func withNew(old []*api.ReplicaSet, newRS *api.ReplicaSet) []*api.ReplicaSet {
	all := append([]*api.ReplicaSet(nil), old...)
	if newRS != nil {
		all = append(all, newRS)
	}
	return all
}
