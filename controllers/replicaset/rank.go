package replicaset

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
)

// podDeletionCost is the annotation that lets users say which pods of a
// ReplicaSet to delete first (lower cost goes first).
const podDeletionCost = "controller.kubernetes.io/pod-deletion-cost"

// phaseOrder ranks phases for deletion: pending pods go before pods of
// unknown phase, which go before running ones.
var phaseOrder = map[string]int{api.PodPending: 0, api.PodUnknown: 1, api.PodRunning: 2}

// podsToDelete returns the n pods of active to delete first, in the real
// controller's order: unscheduled before scheduled; pending before
// unknown before running; not ready before ready; lower deletion cost
// first; pods sharing a node with more of their siblings first; ready
// for a shorter time first; more restarts first; newer first.
func podsToDelete(active []*api.Pod, n int) []*api.Pod {
	if n >= len(active) {
		return active
	}
	perNode := map[string]int{}
	for _, p := range active {
		if p.Spec.NodeName != "" {
			perNode[p.Spec.NodeName]++
		}
	}
	rank := func(p *api.Pod) int {
		if p.Spec.NodeName == "" {
			return 0
		}
		return perNode[p.Spec.NodeName]
	}
	sorted := slices.Clone(active)
	slices.SortStableFunc(sorted, func(a, b *api.Pod) int {
		if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
			return boolFirst(a.Spec.NodeName == "")
		}
		if c := cmp.Compare(phaseOrder[a.Status.Phase], phaseOrder[b.Status.Phase]); c != 0 {
			return c
		}
		ra, rb := api.IsPodReady(a), api.IsPodReady(b)
		if ra != rb {
			return boolFirst(!ra)
		}
		if c := cmp.Compare(deletionCost(a), deletionCost(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(rank(b), rank(a)); c != 0 {
			return c
		}
		if ra && rb {
			if c := laterFirst(readySince(a), readySince(b)); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(maxRestarts(b), maxRestarts(a)); c != 0 {
			return c
		}
		return laterFirst(a.CreationTimestamp.Time, b.CreationTimestamp.Time)
	})
	return sorted[:n]
}

// boolFirst orders a before b when aFirst holds.
func boolFirst(aFirst bool) int {
	if aFirst {
		return -1
	}
	return 1
}

// laterFirst orders the later time first, a zero time before any.
func laterFirst(a, b time.Time) int {
	switch {
	case a.Equal(b):
		return 0
	case a.IsZero():
		return -1
	case b.IsZero():
		return 1
	case a.After(b):
		return -1
	}
	return 1
}

func readySince(p *api.Pod) time.Time {
	if c := p.Status.Condition(api.PodReady); c != nil {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

func maxRestarts(p *api.Pod) int32 {
	var m int32
	for _, s := range p.Status.ContainerStatuses {
		m = max(m, s.RestartCount)
	}
	return m
}

func deletionCost(p *api.Pod) int64 {
	v, err := strconv.ParseInt(p.Annotations[podDeletionCost], 10, 32)
	if err != nil {
		return 0
	}
	return v
}
