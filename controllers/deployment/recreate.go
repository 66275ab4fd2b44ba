package deployment

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

// rolloutRecreate replaces all pods at once: scale every old ReplicaSet
// to zero, wait until none of their pods runs, then create (or scale
// up) the new ReplicaSet to spec.replicas.
func (c *Controller) rolloutRecreate(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	newRS, oldRSs, err := c.replicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	all := withNew(oldRSs, newRS)

	scaledDown := false
	for _, rs := range active(oldRSs) {
		changed, err := c.scaleReplicaSet(ctx, rs, 0, d)
		if err != nil {
			return err
		}
		scaledDown = scaledDown || changed
	}
	if scaledDown {
		return c.syncRolloutStatus(ctx, all, newRS, d)
	}
	if c.oldPodsRunning(newRS, oldRSs) {
		return c.syncRolloutStatus(ctx, all, newRS, d)
	}
	if newRS == nil {
		if newRS, oldRSs, err = c.replicaSetsAndSyncRevision(ctx, d, rsList, true); err != nil {
			return err
		}
		all = withNew(oldRSs, newRS)
	}
	if _, err := c.scaleReplicaSet(ctx, newRS, d.SpecReplicas(), d); err != nil {
		return err
	}
	if complete(d, c.calculateStatus(all, newRS, d)) {
		if err := c.cleanup(ctx, d, oldRSs); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, all, newRS, d)
}

// oldPodsRunning reports whether an old ReplicaSet still has pods that
// have not finished.
func (c *Controller) oldPodsRunning(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) bool {
	if actualSum(oldRSs) > 0 {
		return true
	}
	for _, rs := range oldRSs {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		for _, p := range kit.OwnedBy(c.pods, rs.UID) {
			if !api.IsPodTerminal(p) {
				return true
			}
		}
	}
	return false
}
