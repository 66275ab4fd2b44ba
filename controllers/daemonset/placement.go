package daemonset

import (
	"github.com/kubecache/kubecache/controllers/api"
)

// daemonTolerations are the tolerations the real controller adds to every
// daemon pod: a daemon keeps running on a node that is not ready,
// unreachable, under pressure or cordoned.
var daemonTolerations = []api.Toleration{
	{Key: api.TaintNodeNotReady, Operator: "Exists", Effect: api.TaintNoExecute},
	{Key: api.TaintNodeUnreachable, Operator: "Exists", Effect: api.TaintNoExecute},
	{Key: "node.kubernetes.io/disk-pressure", Operator: "Exists", Effect: api.TaintNoSchedule},
	{Key: "node.kubernetes.io/memory-pressure", Operator: "Exists", Effect: api.TaintNoSchedule},
	{Key: "node.kubernetes.io/pid-pressure", Operator: "Exists", Effect: api.TaintNoSchedule},
	{Key: api.TaintNodeUnschedulable, Operator: "Exists", Effect: api.TaintNoSchedule},
}

// placement says of one node whether a daemon should be started there
// and whether one there may keep running.
type placement struct {
	shouldRun, shouldContinue bool
}

// place decides for spec (the template's, with the daemon tolerations)
// and node: a daemon runs where the node selector and required node
// affinity match and every NoSchedule and NoExecute taint is tolerated;
// one already running stays unless a NoExecute taint is not tolerated or
// the selector stopped matching.
func place(spec *api.PodSpec, node *api.Node) placement {
	if !api.MatchesNodeSelector(spec, node) {
		return placement{}
	}
	p := placement{shouldRun: true, shouldContinue: true}
	for _, t := range node.Spec.Taints {
		if api.Tolerates(spec.Tolerations, t) {
			continue
		}
		switch t.Effect {
		case api.TaintNoExecute:
			return placement{}
		case api.TaintNoSchedule:
			p.shouldRun = false
		}
	}
	return p
}

// nodeOf returns the node a daemon pod is for: its spec.nodeName once
// bound, else the node its required affinity names.
func nodeOf(p *api.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == "In" && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}
