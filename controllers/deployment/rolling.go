package deployment

import (
	"context"
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
)

// rolloutRolling makes one step of a rolling update: scale the new
// ReplicaSet up if maxSurge allows; otherwise scale old ones down if
// maxUnavailable allows; once the rollout is complete, delete old
// ReplicaSets beyond the history limit. It ends by reporting status.
func (c *Controller) rolloutRolling(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	newRS, oldRSs, err := c.replicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	all := withNew(oldRSs, newRS)

	scaledUp, err := c.reconcileNewReplicaSet(ctx, all, newRS, d)
	if err != nil {
		return err
	}
	if scaledUp {
		return c.syncRolloutStatus(ctx, all, newRS, d)
	}
	scaledDown, err := c.reconcileOldReplicaSets(ctx, all, active(oldRSs), newRS, d)
	if err != nil {
		return err
	}
	if scaledDown {
		return c.syncRolloutStatus(ctx, all, newRS, d)
	}
	if complete(d, c.calculateStatus(all, newRS, d)) {
		if err := c.cleanup(ctx, d, oldRSs); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, all, newRS, d)
}

// reconcileNewReplicaSet scales the new ReplicaSet towards spec.replicas
// as far as maxSurge allows (or down to it, if it is larger).
func (c *Controller) reconcileNewReplicaSet(ctx context.Context, all []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) (bool, error) {
	switch {
	case newRS.SpecReplicas() == d.SpecReplicas():
		return false, nil
	case newRS.SpecReplicas() > d.SpecReplicas():
		return c.scaleReplicaSet(ctx, newRS, d.SpecReplicas(), d)
	}
	size, err := newRSReplicas(d, all, newRS)
	if err != nil {
		return false, err
	}
	return c.scaleReplicaSet(ctx, newRS, size, d)
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as
// maxUnavailable allows: first the pods that are not available anyway
// (they cost no availability), then available ones while more than
// spec.replicas − maxUnavailable pods stay available.
func (c *Controller) reconcileOldReplicaSets(ctx context.Context, all, oldRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) (bool, error) {
	if specSum(oldRSs) == 0 {
		return false, nil
	}
	minAvailable := d.SpecReplicas() - maxUnavailable(d)
	newUnavailable := newRS.SpecReplicas() - newRS.Status.AvailableReplicas
	maxScaledDown := specSum(all) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	cleaned, err := c.cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown)
	if err != nil {
		return false, err
	}
	scaled, err := c.scaleDownOldForRollingUpdate(ctx, withNew(oldRSs, newRS), oldRSs, d)
	if err != nil {
		return false, err
	}
	return cleaned+scaled > 0, nil
}

// cleanupUnhealthyReplicas removes, oldest ReplicaSet first, old pods
// that are not available, at most maxCleanup of them.
func (c *Controller) cleanupUnhealthyReplicas(ctx context.Context, oldRSs []*api.ReplicaSet, d *api.Deployment, maxCleanup int32) (int32, error) {
	sorted := slices.Clone(oldRSs)
	slices.SortFunc(sorted, byCreation)
	var total int32
	for _, rs := range sorted {
		if total >= maxCleanup {
			break
		}
		spec := rs.SpecReplicas()
		if spec == 0 || spec == rs.Status.AvailableReplicas {
			continue // nothing to remove, or all healthy
		}
		n := min(maxCleanup-total, spec-rs.Status.AvailableReplicas)
		if _, err := c.scaleReplicaSet(ctx, rs, spec-n, d); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// scaleDownOldForRollingUpdate removes available old pods, oldest
// ReplicaSet first, while more than spec.replicas − maxUnavailable pods
// are available in all.
func (c *Controller) scaleDownOldForRollingUpdate(ctx context.Context, all, oldRSs []*api.ReplicaSet, d *api.Deployment) (int32, error) {
	minAvailable := d.SpecReplicas() - maxUnavailable(d)
	available := availableSum(all)
	if available <= minAvailable {
		return 0, nil
	}
	budget := available - minAvailable
	sorted := slices.Clone(oldRSs)
	slices.SortFunc(sorted, byCreation)
	var total int32
	for _, rs := range sorted {
		if total >= budget {
			break
		}
		if rs.SpecReplicas() == 0 {
			continue
		}
		n := min(rs.SpecReplicas(), budget-total)
		if _, err := c.scaleReplicaSet(ctx, rs, rs.SpecReplicas()-n, d); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}
