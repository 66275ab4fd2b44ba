package nodelifecycle_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/fakeapiserver"
)

// setReady writes the Ready condition of node as its kubelet would
// report it.
func setReady(t *testing.T, c *cluster.Cluster, n *api.Node, status api.ConditionStatus, reason string) {
	t.Helper()
	st := n.Status
	st.Conditions = nil
	for _, cond := range n.Status.Conditions {
		if cond.Type == api.NodeReady {
			cond.Status, cond.Reason = status, reason
		}
		st.Conditions = append(st.Conditions, cond)
	}
	md := n.ObjectMeta
	md.ResourceVersion = ""
	require.NoError(t, kit.PutStatus(context.Background(), c.Client, kit.Target{Resource: "nodes"}, "v1", "Node", &md, st, nil))
}

// TestNotReadyNodeIsTaintedUntilReady has a node report Ready=False: it
// gets the node.kubernetes.io/not-ready taints, NoSchedule and
// NoExecute; once it reports Ready=True again they are removed. The
// clock stands still, so the simulated kubelet's own status beat does
// not report the node Ready before the test does.
func TestNotReadyNodeIsTaintedUntilReady(t *testing.T) {
	clock := fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := cluster.Start(t, cluster.Options{Server: fakeapiserver.Options{Clock: clock}, Controllers: []string{controllers.NodeLifecycle}, Nodes: 1})
	n := cluster.AwaitNamed(t, c, "nodes", "", "node-1", "node-1 ready", api.IsNodeReady)
	setReady(t, c, n, api.ConditionFalse, "KubeletNotReady")
	n = cluster.AwaitNamed(t, c, "nodes", "", "node-1", "node-1 tainted not-ready", func(n *api.Node) bool {
		return hasTaint(n, api.TaintNodeNotReady, api.TaintNoSchedule) && hasTaint(n, api.TaintNodeNotReady, api.TaintNoExecute)
	})
	require.False(t, hasTaint(n, api.TaintNodeUnreachable, api.TaintNoExecute))

	setReady(t, c, n, api.ConditionTrue, "KubeletReady")
	cluster.AwaitNamed(t, c, "nodes", "", "node-1", "the not-ready taints removed", func(n *api.Node) bool {
		return api.IsNodeReady(n) && len(n.Spec.Taints) == 0
	})
}
