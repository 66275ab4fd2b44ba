package api

import (
	"slices"
	"strconv"
)

// MatchesNodeSelector reports whether node satisfies the pod spec's
// nodeSelector and its required node affinity (matchFields on
// metadata.name included), as the scheduler and the DaemonSet controller
// decide where a pod may run.
func MatchesNodeSelector(spec *PodSpec, node *Node) bool {
	for k, v := range spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if MatchesTerm(term, node) {
			return true
		}
	}
	return false
}

// MatchesTerm reports whether node satisfies every requirement of term;
// a term with none matches no node.
func MatchesTerm(term NodeSelectorTerm, node *Node) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	for _, r := range term.MatchExpressions {
		v, ok := node.Labels[r.Key]
		if !matchRequirement(r, v, ok) {
			return false
		}
	}
	for _, r := range term.MatchFields {
		if r.Key != "metadata.name" || !matchRequirement(r, node.Name, true) {
			return false
		}
	}
	return true
}

func matchRequirement(r NodeSelectorRequirement, v string, present bool) bool {
	switch r.Operator {
	case "In":
		return present && slices.Contains(r.Values, v)
	case "NotIn":
		return !present || !slices.Contains(r.Values, v)
	case "Exists":
		return present
	case "DoesNotExist":
		return !present
	case "Gt", "Lt":
		if !present || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == "Gt" {
			return have > want
		}
		return have < want
	}
	return false
}
