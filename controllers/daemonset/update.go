package daemonset

import (
	"context"
	"errors"
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
)

// maxUnavailable returns how many of desired daemons may be unavailable
// during a rolling update: rollingUpdate.maxUnavailable (default 1), a
// percentage rounded up.
func maxUnavailable(ds *api.DaemonSet, desired int32) int32 {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return 1
	}
	n, err := ru.MaxUnavailable.Scaled(desired, true)
	if err != nil {
		return 1
	}
	return n
}

// maxSurge returns how many nodes may run a daemon of the update
// revision beside an old one during a rolling update:
// rollingUpdate.maxSurge (default 0), a percentage of desired rounded
// up.
func maxSurge(ds *api.DaemonSet, desired int32) int32 {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Spec.UpdateStrategy.Type == api.OnDeleteStrategy || ru == nil || ru.MaxSurge == nil {
		return 0
	}
	n, err := ru.MaxSurge.Scaled(desired, true)
	if err != nil {
		return 0
	}
	return n
}

// allowsSurge reports whether the DaemonSet may run two daemons on a node
// while it updates.
func allowsSurge(ds *api.DaemonSet) bool { return maxSurge(ds, 1) > 0 }

// rollingUpdate takes a step of the rolling update: with maxSurge, by
// starting daemons of the update revision beside old ones
// (surgingUpdate); otherwise by deleting old daemons within
// maxUnavailable.
func (c *Controller) rollingUpdate(ctx context.Context, key string, s *state) error {
	var desired int32
	for _, node := range s.nodes {
		if place(&s.spec, node).shouldRun {
			desired++
		}
	}
	if surge := maxSurge(s.ds, desired); surge > 0 {
		return c.surgingUpdate(ctx, key, s, desired, surge)
	}
	return c.replaceWithin(ctx, key, s)
}

// replaceWithin deletes daemons of an old revision, each to be replaced
// by one of the update revision: those not available at once, and
// available ones only while fewer than maxUnavailable daemons are
// unavailable (missing, or not yet available at either revision).
func (c *Controller) replaceWithin(ctx context.Context, key string, s *state) error {
	var desired, unavailable int32
	var oldAvailable, remove []*api.Pod
	for _, node := range s.nodes {
		if !place(&s.spec, node).shouldRun {
			continue
		}
		desired++
		active := s.active(node.Name)
		if len(active) == 0 {
			unavailable++
			continue
		}
		p := active[0]
		available := api.IsPodAvailable(p, s.ds.Spec.MinReadySeconds, s.now)
		switch {
		case p.Labels[api.ControllerRevisionHashLabel] == s.hash:
			if !available {
				unavailable++
			}
		case !available:
			remove = append(remove, p)
			unavailable++
		default:
			oldAvailable = append(oldAvailable, p)
		}
	}
	// Neither surge nor unavailability allowed: the real controller then
	// accepts one unavailable daemon.
	budget := max(maxUnavailable(s.ds, desired), 1)
	for _, p := range oldAvailable {
		if unavailable >= budget {
			break
		}
		remove = append(remove, p)
		unavailable++
	}
	if len(remove) == 0 {
		return nil
	}
	return c.deletePods(ctx, key, s.ds, remove)
}

// updatedOnNode returns the live daemons on node of the update revision
// and of an old one; ok is false when there are two of either (the next
// reconcile removes the extra one first).
func (s *state) updatedOnNode(node string) (updated, old *api.Pod, ok bool) {
	for _, p := range s.active(node) {
		if p.Labels[api.ControllerRevisionHashLabel] == s.hash {
			if updated != nil {
				return nil, nil, false
			}
			updated = p
		} else {
			if old != nil {
				return nil, nil, false
			}
			old = p
		}
	}
	return updated, old, true
}

// surgingUpdate starts a daemon of the update revision beside each old
// one that is not available, and beside available ones while fewer than
// surge nodes run two daemons; once a new daemon is available its old
// one is deleted. An old daemon on a node it should no longer run on is
// deleted only while more daemons are available than desired, so the
// DaemonSet never drops below full availability.
func (c *Controller) surgingUpdate(ctx context.Context, key string, s *state, desired, surge int32) error {
	var remove, misplaced []*api.Pod
	var allowed, candidates []string
	var surging, available int32
	isAvailable := func(p *api.Pod) bool { return api.IsPodAvailable(p, s.ds.Spec.MinReadySeconds, s.now) }
	for _, node := range s.nodes {
		updated, old, ok := s.updatedOnNode(node.Name)
		if !ok {
			surging++
			continue
		}
		if (old != nil && isAvailable(old)) || (old == nil && updated != nil && isAvailable(updated)) {
			available++
		}
		shouldRun := place(&s.spec, node).shouldRun
		switch {
		case old == nil:
		case updated == nil && !isAvailable(old):
			if !shouldRun {
				remove = append(remove, old)
				continue
			}
			allowed = append(allowed, node.Name)
		case updated == nil:
			if !shouldRun {
				misplaced = append(misplaced, old)
				continue
			}
			if surging < surge {
				candidates = append(candidates, node.Name)
			}
		case !isAvailable(updated):
			surging++
		default:
			remove = append(remove, old)
		}
	}
	if deletable := min(int(available-desired), len(misplaced)); deletable > 0 {
		remove = append(remove, misplaced[:deletable]...)
	}
	room := min(max(int(surge-surging), 0), len(candidates))
	create := append(allowed, candidates[:room]...)
	if len(remove) == 0 && len(create) == 0 {
		return nil
	}
	return errors.Join(c.deletePods(ctx, key, s.ds, remove), c.createPods(ctx, key, s.ds, s.hash, create))
}

// excessDaemons returns which of a node's live daemons (more than one)
// to delete: all but the oldest, or while surging the oldest of the
// update revision and the oldest old one are kept together until the new
// one is available (or the old one stops being ready).
func (s *state) excessDaemons(active []*api.Pod) []*api.Pod {
	active = slices.Clone(active)
	slices.SortStableFunc(active, func(a, b *api.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	if !allowsSurge(s.ds) {
		return active[1:]
	}
	var remove []*api.Pod
	var updated, old *api.Pod
	for _, p := range active {
		switch {
		case p.Labels[api.ControllerRevisionHashLabel] == s.hash && updated == nil:
			updated = p
		case p.Labels[api.ControllerRevisionHashLabel] != s.hash && old == nil:
			old = p
		default:
			remove = append(remove, p)
		}
	}
	if updated != nil && old != nil && (!api.IsPodReady(old) || api.IsPodAvailable(updated, s.ds.Spec.MinReadySeconds, s.now)) {
		remove = append(remove, old)
	}
	return remove
}
