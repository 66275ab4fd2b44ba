package scheduler

import (
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
)

// The filter failures, worded as kube-scheduler's plugins word them.
const (
	reasonUnschedulable = "node(s) were unschedulable"
	reasonTaint         = "node(s) had untolerated taint(s)"
	reasonAffinity      = "node(s) didn't match Pod's node affinity/selector"
	reasonTooManyPods   = "Too many pods"
)

// nodeInfo is a node and what the pods on it already request.
type nodeInfo struct {
	node *api.Node
	// requested and nonZero are the sums of the pods' requests in
	// milli-units; nonZero counts a container without a cpu or memory
	// request as 100m cpu and 200Mi memory, as the scorer does.
	requested, nonZero map[string]int64
	pods               int
}

// Defaults the scorer assumes for a container that requests nothing.
const (
	defaultMilliCPU    = 100
	defaultMemoryMilli = 200 * 1024 * 1024 * 1000
)

// podCost is what a pod takes on a node: its requests, and the cpu and
// memory the scorer counts for it.
type podCost struct {
	requests               map[string]int64
	nonZeroCPU, nonZeroMem int64
}

func costOf(p *api.Pod) *podCost {
	cpu, mem := nonZeroRequests(p)
	return &podCost{requests: api.PodRequests(p), nonZeroCPU: cpu, nonZeroMem: mem}
}

func (n *nodeInfo) add(c *podCost) {
	for k, v := range c.requests {
		n.requested[k] += v
	}
	n.nonZero["cpu"] += c.nonZeroCPU
	n.nonZero["memory"] += c.nonZeroMem
	n.pods++
}

func (n *nodeInfo) sub(c *podCost) {
	for k, v := range c.requests {
		n.requested[k] -= v
	}
	n.nonZero["cpu"] -= c.nonZeroCPU
	n.nonZero["memory"] -= c.nonZeroMem
	n.pods--
}

// nonZeroRequests returns p's cpu and memory requests with the scorer's
// defaults for containers that request none.
func nonZeroRequests(p *api.Pod) (cpu, mem int64) {
	for _, c := range p.Spec.Containers {
		v, _ := c.Resources.Requests.Milli("cpu")
		if _, ok := c.Resources.Requests["cpu"]; !ok {
			v = defaultMilliCPU
		}
		cpu += v
		v, _ = c.Resources.Requests.Milli("memory")
		if _, ok := c.Resources.Requests["memory"]; !ok {
			v = defaultMemoryMilli
		}
		mem += v
	}
	return cpu, mem
}

// misfit is why a pod cannot run on a node: the filter's reasons, and
// whether preempting pods could not help (the node refuses the pod
// whatever runs on it).
type misfit struct {
	reasons      []string
	unresolvable bool
}

// fits returns why p cannot run on n, or a misfit with no reasons if it
// can. Like the real filters, the first failing check decides; the
// resource check reports every resource that is short, and the shortage
// is past preemption's help when the pod asks for more than the node
// has in all.
func fits(p *api.Pod, req map[string]int64, n *nodeInfo) misfit {
	if n.node.Spec.Unschedulable && !api.Tolerates(p.Spec.Tolerations, api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintNoSchedule}) {
		return misfit{[]string{reasonUnschedulable}, true}
	}
	for _, t := range n.node.Spec.Taints {
		if (t.Effect == api.TaintNoSchedule || t.Effect == api.TaintNoExecute) && !api.Tolerates(p.Spec.Tolerations, t) {
			return misfit{[]string{reasonTaint}, true}
		}
	}
	if !api.MatchesNodeSelector(&p.Spec, n.node) {
		return misfit{[]string{reasonAffinity}, true}
	}
	var short []string
	unresolvable := false
	if max, _ := n.node.Status.Allocatable.Milli("pods"); n.node.Status.Allocatable["pods"] != "" && int64(n.pods+1)*1000 > max {
		short = append(short, reasonTooManyPods)
	}
	names := make([]string, 0, len(req))
	for k := range req {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		want := req[name]
		if want == 0 || name == "pods" {
			continue
		}
		alloc, _ := n.node.Status.Allocatable.Milli(name)
		if alloc-n.requested[name] < want {
			short = append(short, "Insufficient "+name)
			unresolvable = unresolvable || want > alloc
		}
	}
	return misfit{short, unresolvable}
}
