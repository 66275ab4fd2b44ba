package daemonset

import (
	"github.com/kubecache/kubecache/controllers/api"
)

// computeStatus counts, over the nodes: where a daemon should run
// (desired), where one runs among those (current), where one runs but
// should not (misscheduled), and of the daemons where they should run,
// the ready, available and updated ones.
func computeStatus(s *state) api.DaemonSetStatus {
	st := api.DaemonSetStatus{ObservedGeneration: s.ds.Generation, CollisionCount: s.ds.Status.CollisionCount}
	for _, node := range s.nodes {
		pl := place(&s.spec, node)
		active := s.active(node.Name)
		if !pl.shouldRun {
			if len(active) > 0 {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if len(active) == 0 {
			continue
		}
		st.CurrentNumberScheduled++
		p := active[0]
		if api.IsPodReady(p) {
			st.NumberReady++
		}
		if api.IsPodAvailable(p, s.ds.Spec.MinReadySeconds, s.now) {
			st.NumberAvailable++
		}
		if p.Labels[api.ControllerRevisionHashLabel] == s.hash {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	return st
}
