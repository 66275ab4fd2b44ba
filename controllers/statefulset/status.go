package statefulset

import (
	"time"

	"github.com/kubecache/kubecache/controllers/api"
)

// computeStatus counts the set's pods: all of them, the running and
// ready, the available, those at the current and at the update
// revision. A rolling update whose pods are all updated and ready is
// complete: the update revision becomes the current one.
func computeStatus(set *api.StatefulSet, revs revisions, pods []*podAt, now time.Time) api.StatefulSetStatus {
	st := api.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    revs.current.Name,
		UpdateRevision:     revs.update.Name,
		CollisionCount:     set.Status.CollisionCount,
		Conditions:         set.Status.Conditions,
	}
	for _, p := range pods {
		if p.Status.Phase == "" {
			continue
		}
		st.Replicas++
		if p.Status.Phase == api.PodRunning && api.IsPodReady(p.Pod) {
			st.ReadyReplicas++
			if api.IsPodAvailable(p.Pod, set.Spec.MinReadySeconds, now) {
				st.AvailableReplicas++
			}
		}
		if p.revision() == revs.current.Name {
			st.CurrentReplicas++
		}
		if p.revision() == revs.update.Name {
			st.UpdatedReplicas++
		}
	}
	if set.Spec.UpdateStrategy.Type != api.OnDeleteStrategy && st.UpdatedReplicas == st.Replicas && st.ReadyReplicas == st.Replicas {
		st.CurrentReplicas = st.UpdatedReplicas
		st.CurrentRevision = st.UpdateRevision
	}
	return st
}
