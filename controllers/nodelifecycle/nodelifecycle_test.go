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
// Unknown and it carries the unreachable taints; 300 s later its pod is
// marked for deletion and the ReplicaSet's replacement runs on the other
// node.
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
	cluster.Await(t, c, "pods", "a ready pod on each node", func(ps []*api.Pod) bool {
		on := map[string]bool{}
		for _, p := range ps {
			if api.IsPodReady(p) {
				on[p.Spec.NodeName] = true
			}
		}
		return on["node-1"] && on["node-2"]
	})

	require.True(t, c.Kubelet.StopNode("node-2"))
	// Move time in the kubelet's renewal steps, so the running node keeps
	// its Lease fresh.
	for range 6 {
		clock.Step(10 * time.Second)
		now := clock.Now()
		cluster.AwaitNamed(t, c, "leases.v1.coordination.k8s.io", api.NodeLeaseNamespace, "node-1", "node-1 renewed", func(l *api.Lease) bool {
			return l.Spec.RenewTime != nil && !l.Spec.RenewTime.Before(now)
		})
	}
	n2 := cluster.AwaitNamed(t, c, "nodes", "", "node-2", "node-2 unreachable", func(n *api.Node) bool {
		return hasTaint(n, api.TaintNodeUnreachable, api.TaintNoExecute) && hasTaint(n, api.TaintNodeUnreachable, api.TaintNoSchedule)
	})
	ready := n2.Status.Condition(api.NodeReady)
	assert.Equal(t, api.ConditionUnknown, ready.Status)
	assert.Equal(t, "NodeStatusUnknown", ready.Reason)
	assert.Equal(t, "Kubelet stopped posting node status.", ready.Message)
	n1 := cluster.AwaitNamed(t, c, "nodes", "", "node-1", "node-1", func(*api.Node) bool { return true })
	assert.True(t, api.IsNodeReady(n1))
	assert.Empty(t, n1.Spec.Taints)

	for range 31 {
		clock.Step(10 * time.Second)
		now := clock.Now()
		cluster.AwaitNamed(t, c, "leases.v1.coordination.k8s.io", api.NodeLeaseNamespace, "node-1", "node-1 renewed", func(l *api.Lease) bool {
			return l.Spec.RenewTime != nil && !l.Spec.RenewTime.Before(now)
		})
	}
	cluster.Await(t, c, "pods", "the pod on node-2 evicted and replaced on node-1", func(ps []*api.Pod) bool {
		evicted, onOne := false, 0
		for _, p := range ps {
			if p.Spec.NodeName == "node-2" && p.DeletionTimestamp != nil {
				evicted = true
			}
			if p.Spec.NodeName == "node-1" && p.DeletionTimestamp == nil && api.IsPodReady(p) {
				onOne++
			}
		}
		return evicted && onOne == 2
	})
}
