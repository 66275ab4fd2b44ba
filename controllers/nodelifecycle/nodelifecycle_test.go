package nodelifecycle_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/fakeapiserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func hasTaint(n *api.Node, key, effect string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == effect {
			return true
		}
	}
	return false
}

// TestStoppedNodeIsTaintedAndItsPodsEvicted stops one of two nodes
// running a ReplicaSet's pods: after the 50 s grace its conditions are
// Unknown and it carries the unreachable taints; 300 s later its pods
// are marked for deletion and the ReplicaSet's replacements run on the
// other node.
func TestStoppedNodeIsTaintedAndItsPodsEvicted(t *testing.T) {
	clock := fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := cluster.Start(t, cluster.Options{
		Server:      fakeapiserver.Options{Clock: clock},
		Controllers: []string{controllers.ReplicaSet, controllers.Scheduler, controllers.NodeLifecycle}, Nodes: 2,
	})
	cluster.Await(t, c, "nodes", "two ready nodes", func(ns []*api.Node) bool {
		return len(ns) == 2 && api.IsNodeReady(ns[0]) && api.IsNodeReady(ns[1])
	})
	rs := map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{"replicas": 2, "selector": map[string]any{"matchLabels": map[string]string{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": "web"}},
				"spec": map[string]any{"containers": []map[string]any{{"name": "web", "image": "nginx"}}}}},
	}
	require.NoError(t, kit.Create(context.Background(), c.Client, kit.Target{Group: "apps", Version: "v1", Resource: "replicasets", Namespace: "default"}, rs, nil))
	// The scheduler spreads the two pods when its informer already shows
	// both nodes ready; under load it may not yet, and put both on one.
	// The node stopped is the first pod's, the other one takes over.
	var victim string
	cluster.Await(t, c, "pods", "two ready pods", func(ps []*api.Pod) bool {
		ready := 0
		for _, p := range ps {
			if api.IsPodReady(p) {
				ready++
				victim = p.Spec.NodeName
			}
		}
		return ready == 2
	})
	other := "node-1"
	if victim == "node-1" {
		other = "node-2"
	}

	require.True(t, c.Kubelet.StopNode(victim))
	// Move time in the kubelet's renewal steps, so the running node keeps
	// its Lease fresh.
	for range 6 {
		clock.Step(10 * time.Second)
		now := clock.Now()
		cluster.AwaitNamed(t, c, "leases.v1.coordination.k8s.io", api.NodeLeaseNamespace, other, other+" renewed", func(l *api.Lease) bool {
			return l.Spec.RenewTime != nil && !l.Spec.RenewTime.Before(now)
		})
	}
	stopped := cluster.AwaitNamed(t, c, "nodes", "", victim, victim+" unreachable", func(n *api.Node) bool {
		return hasTaint(n, api.TaintNodeUnreachable, api.TaintNoExecute) && hasTaint(n, api.TaintNodeUnreachable, api.TaintNoSchedule)
	})
	ready := stopped.Status.Condition(api.NodeReady)
	assert.Equal(t, api.ConditionUnknown, ready.Status)
	assert.Equal(t, "NodeStatusUnknown", ready.Reason)
	assert.Equal(t, "Kubelet stopped posting node status.", ready.Message)
	running := cluster.AwaitNamed(t, c, "nodes", "", other, other, func(*api.Node) bool { return true })
	assert.True(t, api.IsNodeReady(running))
	assert.Empty(t, running.Spec.Taints)

	for range 31 {
		clock.Step(10 * time.Second)
		now := clock.Now()
		cluster.AwaitNamed(t, c, "leases.v1.coordination.k8s.io", api.NodeLeaseNamespace, other, other+" renewed", func(l *api.Lease) bool {
			return l.Spec.RenewTime != nil && !l.Spec.RenewTime.Before(now)
		})
	}
	cluster.Await(t, c, "pods", "the pods on the stopped node evicted and replaced on the other", func(ps []*api.Pod) bool {
		evicted, onOther := false, 0
		for _, p := range ps {
			if p.Spec.NodeName == victim && p.DeletionTimestamp != nil {
				evicted = true
			}
			if p.Spec.NodeName == other && p.DeletionTimestamp == nil && api.IsPodReady(p) {
				onOther++
			}
		}
		return evicted && onOther == 2
	})
}
