package deployment

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

// isScalingEvent reports whether spec.replicas changed since the active
// ReplicaSets were last sized (their desired-replicas annotation).
func (c *Controller) isScalingEvent(d *api.Deployment, rsList []*api.ReplicaSet) bool {
	for _, rs := range active(rsList) {
		desired, err := strconv.ParseInt(rs.Annotations[DesiredReplicasAnnotation], 10, 32)
		if err != nil {
			continue
		}
		if int32(desired) != d.SpecReplicas() {
			return true
		}
	}
	return false
}

// syncScale applies a change of spec.replicas without rolling out (also
// what a paused Deployment does), then reports status.
func (c *Controller) syncScale(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	newRS, oldRSs, err := c.replicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := c.scale(ctx, d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := c.cleanup(ctx, d, oldRSs); err != nil {
			return err
		}
	}
	return c.syncDeploymentStatus(ctx, withNew(oldRSs, newRS), newRS, d)
}

// scale brings the ReplicaSets' total to spec.replicas (plus maxSurge in
// a rolling update): with one active ReplicaSet, it takes the whole
// size; with a saturated new one, the old ones go to zero; otherwise the
// difference is spread in proportion to each ReplicaSet's size, larger
// ones first, the rounding leftover to the first.
func (c *Controller) scale(ctx context.Context, d *api.Deployment, newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) error {
	if rs := activeOrLatest(newRS, oldRSs); rs != nil {
		if rs.SpecReplicas() == d.SpecReplicas() {
			return nil
		}
		_, err := c.scaleReplicaSet(ctx, rs, d.SpecReplicas(), d)
		return err
	}
	if isSaturated(d, newRS) {
		for _, old := range active(oldRSs) {
			if _, err := c.scaleReplicaSet(ctx, old, 0, d); err != nil {
				return err
			}
		}
		return nil
	}
	if d.StrategyType() != api.RollingUpdateStrategy {
		return nil
	}
	all := active(withNew(oldRSs, newRS))
	allowed := int32(0)
	if d.SpecReplicas() > 0 {
		allowed = d.SpecReplicas() + maxSurge(d)
	}
	toAdd := allowed - specSum(all)
	if toAdd > 0 {
		slices.SortStableFunc(all, func(a, b *api.ReplicaSet) int { return bySizeThen(a, b, true) })
	} else if toAdd < 0 {
		slices.SortStableFunc(all, func(a, b *api.ReplicaSet) int { return bySizeThen(a, b, false) })
	}
	sizes := map[string]int32{}
	var added int32
	for _, rs := range all {
		if toAdd != 0 {
			p := proportion(rs, d, toAdd, added)
			sizes[rs.Name] = rs.SpecReplicas() + p
			added += p
		} else {
			sizes[rs.Name] = rs.SpecReplicas()
		}
	}
	for i, rs := range all {
		size := sizes[rs.Name]
		if i == 0 && toAdd != 0 {
			size = max(size+toAdd-added, 0)
		}
		if _, err := c.scaleReplicaSet(ctx, rs, size, d); err != nil {
			return err
		}
	}
	return nil
}

// bySizeThen orders larger ReplicaSets first; among equals, the newer
// first when newerFirst is set, the older first otherwise.
func bySizeThen(a, b *api.ReplicaSet, newerFirst bool) int {
	if c := cmp.Compare(b.SpecReplicas(), a.SpecReplicas()); c != 0 {
		return c
	}
	if newerFirst {
		return byCreation(b, a)
	}
	return byCreation(a, b)
}

// proportion is rs's share of toAdd: its size scaled by the Deployment's
// new maximum over the maximum it was sized for, never more than what
// is left to add (or remove).
func proportion(rs *api.ReplicaSet, d *api.Deployment, toAdd, added int32) int32 {
	if rs.SpecReplicas() == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	var fraction int32
	if d.SpecReplicas() == 0 {
		fraction = -rs.SpecReplicas()
	} else {
		annotated := d.Status.Replicas
		if v, err := strconv.ParseInt(rs.Annotations[MaxReplicasAnnotation], 10, 32); err == nil {
			annotated = int32(v)
		}
		newMax := d.SpecReplicas() + maxSurge(d)
		size := float64(rs.SpecReplicas()) * float64(newMax) / float64(max(annotated, 1))
		fraction = int32(math.Round(size)) - rs.SpecReplicas()
	}
	left := toAdd - added
	if toAdd > 0 {
		return min(fraction, left)
	}
	return max(fraction, left)
}

// activeOrLatest returns the one ReplicaSet that has pods, or, when none
// has, the new one or else the newest old one; nil when several have.
func activeOrLatest(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) *api.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	old := slices.Clone(oldRSs)
	slices.SortFunc(old, func(a, b *api.ReplicaSet) int { return byCreation(b, a) })
	all := active(withNew(old, newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return old[0]
	case 1:
		return all[0]
	}
	return nil
}

// isSaturated reports whether the new ReplicaSet runs all of spec.replicas
// and all of them are available.
func isSaturated(d *api.Deployment, rs *api.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, err := strconv.ParseInt(rs.Annotations[DesiredReplicasAnnotation], 10, 32)
	return err == nil && rs.SpecReplicas() == d.SpecReplicas() && int32(desired) == d.SpecReplicas() && rs.Status.AvailableReplicas == d.SpecReplicas()
}

// scaleReplicaSet sets rs's size (and its desired and max replicas
// annotations) with a patch conditional on the version read, records the
// ScalingReplicaSet event, and updates rs in place. It reports whether
// the size changed.
func (c *Controller) scaleReplicaSet(ctx context.Context, rs *api.ReplicaSet, size int32, d *api.Deployment) (bool, error) {
	old := rs.SpecReplicas()
	annotations := maps.Clone(rs.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotationsChanged := setReplicasAnnotations(annotations, d.SpecReplicas(), d.SpecReplicas()+maxSurge(d))
	if old == size && !annotationsChanged {
		return false, nil
	}
	patch := map[string]any{
		"metadata": map[string]any{"resourceVersion": rs.ResourceVersion, "annotations": annotations},
		"spec":     map[string]any{"replicas": size},
	}
	var out api.ReplicaSet
	if err := kit.MergePatch(ctx, c.env.Client, rsTarget(rs), "", patch, &out); err != nil {
		return false, err
	}
	*rs = out
	if old != size {
		direction := "up"
		if size < old {
			direction = "down"
		}
		c.event(d, api.EventNormal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", direction, rs.Name, old, size)
	}
	return old != size, nil
}
