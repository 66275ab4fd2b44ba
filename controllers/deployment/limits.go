package deployment

import (
	"github.com/kubecache/kubecache/controllers/api"
)

// limits resolves maxSurge (rounded up) and maxUnavailable (rounded down)
// against spec.replicas; if both come to zero, maxUnavailable is 1, so a
// rollout can always move. Recreate has neither.
func limits(d *api.Deployment) (surge, unavailable int32) {
	if d.StrategyType() != api.RollingUpdateStrategy {
		return 0, 0
	}
	ms, mu := d.RollingParams()
	replicas := d.SpecReplicas()
	surge, err1 := ms.Scaled(replicas, true)
	unavailable, err2 := mu.Scaled(replicas, false)
	if err1 != nil || err2 != nil {
		return 0, 1
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable
}

// maxUnavailable is how many of spec.replicas may be unavailable during a
// rolling update (never more than spec.replicas).
func maxUnavailable(d *api.Deployment) int32 {
	if d.StrategyType() != api.RollingUpdateStrategy || d.SpecReplicas() == 0 {
		return 0
	}
	_, u := limits(d)
	return min(u, d.SpecReplicas())
}

// maxSurge is how many pods above spec.replicas a rolling update may run.
func maxSurge(d *api.Deployment) int32 {
	s, _ := limits(d)
	return s
}

// newRSReplicas is the size the new ReplicaSet may have now: all of
// spec.replicas for Recreate; for RollingUpdate, as many more as keep the
// total under spec.replicas + maxSurge.
func newRSReplicas(d *api.Deployment, all []*api.ReplicaSet, newRS *api.ReplicaSet) (int32, error) {
	if d.StrategyType() != api.RollingUpdateStrategy {
		return d.SpecReplicas(), nil
	}
	cur := newRS.SpecReplicas()
	maxTotal := d.SpecReplicas() + maxSurge(d)
	total := specSum(all)
	if total >= maxTotal {
		return cur, nil
	}
	return cur + min(maxTotal-total, d.SpecReplicas()-cur), nil
}

// The sums over ReplicaSets a Deployment's status is made of.

func specSum(rss []*api.ReplicaSet) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += rs.SpecReplicas()
		}
	}
	return n
}

func actualSum(rss []*api.ReplicaSet) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.Replicas
		}
	}
	return n
}

func readySum(rss []*api.ReplicaSet) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.ReadyReplicas
		}
	}
	return n
}

func availableSum(rss []*api.ReplicaSet) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.AvailableReplicas
		}
	}
	return n
}

// terminatingSum sums terminatingReplicas, nil when no ReplicaSet reports
// it.
func terminatingSum(rss []*api.ReplicaSet) *int32 {
	var n *int32
	for _, rs := range rss {
		if rs != nil && rs.Status.TerminatingReplicas != nil {
			if n == nil {
				n = new(int32)
			}
			*n += *rs.Status.TerminatingReplicas
		}
	}
	return n
}

// active returns the ReplicaSets that should have pods.
func active(rss []*api.ReplicaSet) []*api.ReplicaSet {
	var out []*api.ReplicaSet
	for _, rs := range rss {
		if rs != nil && rs.SpecReplicas() > 0 {
			out = append(out, rs)
		}
	}
	return out
}
