package replicaset

import (
	"context"
	"reflect"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
)

// calculateStatus is rs's status given its active and terminating pods
// and the outcome of this round's creations and deletions.
func calculateStatus(rs *api.ReplicaSet, active, terminating []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus {
	st := rs.Status
	st.Conditions = append([]api.ReplicaSetCondition(nil), rs.Status.Conditions...)
	var labeled, ready, available int32
	for _, p := range active {
		if matchesAll(rs.Spec.Template.Metadata.Labels, p.Labels) {
			labeled++
		}
		if api.IsPodReady(p) {
			ready++
			if api.IsPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	failure := condition(st.Conditions, api.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := "FailedDelete"
		if len(active) < int(rs.SpecReplicas()) {
			reason = "FailedCreate"
		}
		st.Conditions = append(st.Conditions, api.ReplicaSetCondition{
			Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue,
			LastTransitionTime: meta.NewTime(now), Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && failure != nil:
		var kept []api.ReplicaSetCondition
		for _, c := range st.Conditions {
			if c.Type != api.ReplicaSetReplicaFailure {
				kept = append(kept, c)
			}
		}
		st.Conditions = kept
	}
	terminatingCount := int32(len(terminating))
	st.Replicas = int32(len(active))
	st.FullyLabeledReplicas = labeled
	st.ReadyReplicas = ready
	st.AvailableReplicas = available
	st.TerminatingReplicas = &terminatingCount
	st.ObservedGeneration = rs.Generation
	return st
}

func condition(cs []api.ReplicaSetCondition, t string) *api.ReplicaSetCondition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

// matchesAll reports whether labels carry every pair of want.
func matchesAll(want, labels map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// writeStatus writes st unless rs already has it, and returns the
// ReplicaSet as it is afterwards.
func (c *Controller) writeStatus(ctx context.Context, rs *api.ReplicaSet, st api.ReplicaSetStatus) (*api.ReplicaSet, error) {
	if reflect.DeepEqual(rs.Status, st) {
		return rs, nil
	}
	var out api.ReplicaSet
	t := kit.Target{Group: "apps", Version: "v1", Resource: "replicasets"}
	if err := kit.PutStatus(ctx, c.env.Client, t, "apps/v1", "ReplicaSet", &rs.ObjectMeta, st, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// nextAvailable returns how long until the first ready pod that is not
// available yet becomes so.
func nextAvailable(active []*api.Pod, minReadySeconds int32, now time.Time) time.Duration {
	need := time.Duration(minReadySeconds) * time.Second
	next := need
	for _, p := range active {
		c := p.Status.Condition(api.PodReady)
		if c == nil || c.Status != api.ConditionTrue || c.LastTransitionTime.IsZero() {
			continue
		}
		if left := c.LastTransitionTime.Add(need).Sub(now); left > 0 && left < next {
			next = left
		}
	}
	return next
}
