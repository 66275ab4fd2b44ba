package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/controllers/api"
)

// TestFitsAndPreemption: a node short of what it has room for now is one
// where preemption might help; one the pod asks more of than it has in
// all, or whose taint, cordon or labels refuse the pod, is one where it
// cannot; kube-scheduler counts the two apart in its message.
func TestFitsAndPreemption(t *testing.T) {
	node := func(name string, taints ...api.Taint) *nodeInfo {
		n := &api.Node{}
		n.Name = name
		n.Spec.Taints = taints
		n.Status.Allocatable = api.ResourceList{"cpu": "4", "memory": "8Gi", "pods": "110"}
		return &nodeInfo{node: n, requested: map[string]int64{"cpu": 3000}, nonZero: map[string]int64{}}
	}
	p := &api.Pod{}
	two := fits(p, map[string]int64{"cpu": 2000}, node("a"))
	assert.Equal(t, misfit{reasons: []string{"Insufficient cpu"}}, two, "4 cpu, 3 taken: 2 could fit if a pod went")
	six := fits(p, map[string]int64{"cpu": 6000}, node("b"))
	assert.Equal(t, misfit{reasons: []string{"Insufficient cpu"}, unresolvable: true}, six, "6 cpu is more than the node has")
	tainted := fits(p, map[string]int64{"cpu": 100}, node("c", api.Taint{Key: "k", Effect: api.TaintNoSchedule}))
	assert.Equal(t, misfit{reasons: []string{reasonTaint}, unresolvable: true}, tainted)
	assert.Empty(t, fits(p, map[string]int64{"cpu": 500}, node("d")).reasons)

	assert.Equal(t, "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "+
		"preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
		fitError(3, map[string]misfit{"a": two, "b": six, "c": tainted}))
	assert.Equal(t, "no nodes available to schedule pods", fitError(0, nil))
}
