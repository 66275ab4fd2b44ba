package scheduler

import (
	"fmt"
	"sort"
	"strings"
)

// Post-filter reasons: why preemption would not help on a node.
const (
	preemptionNotHelpful = "Preemption is not helpful for scheduling"
	noVictims            = "No preemption victims found for incoming pod"
)

// fitError is the message kube-scheduler writes when a pod fits nowhere:
// "0/N nodes are available: <count> <reason>, …. preemption: 0/N nodes
// are available: <count> <reason>." Reasons are counted over nodes and
// sorted as strings.
// A node preemption could not help (untolerated, unselected, or short of
// more than it has) counts as "Preemption is not helpful"; one where
// evicting pods might make room, with no pods of lower priority to
// evict, as "No preemption victims".
func fitError(total int, misfits map[string]misfit) string {
	filter := map[string]int{}
	post := map[string]int{}
	for _, m := range misfits {
		for _, r := range m.reasons {
			filter[r]++
		}
		if m.unresolvable {
			post[preemptionNotHelpful]++
		} else {
			post[noVictims]++
		}
	}
	if total == 0 {
		return "no nodes available to schedule pods"
	}
	msg := fmt.Sprintf("0/%d nodes are available: %s.", total, histogram(filter))
	return msg + fmt.Sprintf(" preemption: 0/%d nodes are available: %s.", total, histogram(post))
}

func histogram(counts map[string]int) string {
	var out []string
	for r, n := range counts {
		out = append(out, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// noteLimit is the longest note an events.k8s.io/v1 Event may carry
// (the API's validation limit).
const noteLimit = 1024

// truncateNote shortens a FailedScheduling message to fit an event's
// note, ending it with " ..." as kube-scheduler does; a message that
// fits is kept whole. The pod condition keeps the whole message.
func truncateNote(msg string) string {
	if len(msg) <= noteLimit {
		return msg
	}
	const suffix = " ..."
	return msg[:noteLimit-len(suffix)] + suffix
}
