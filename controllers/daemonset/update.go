package daemonset

import (
	"context"

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

// rollingUpdate deletes daemons of an old revision, each to be replaced
// by one of the update revision: those not available at once, and
// available ones only while fewer than maxUnavailable daemons are
// unavailable (missing, or not yet available at either revision).
func (c *Controller) rollingUpdate(ctx context.Context, key string, s *state) error {
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
	budget := maxUnavailable(s.ds, desired)
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
