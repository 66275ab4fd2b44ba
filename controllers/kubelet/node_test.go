package kubelet_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/rest"
)

// renewedSince returns the condition that the node Leases renewed at or
// after at are exactly those named.
func renewedSince(at time.Time, want ...string) func([]*api.Lease) bool {
	return func(ls []*api.Lease) bool {
		got := map[string]bool{}
		for _, l := range ls {
			if l.Namespace == api.NodeLeaseNamespace && l.Spec.RenewTime != nil && !l.Spec.RenewTime.Before(at) {
				got[l.Name] = true
			}
		}
		for _, w := range want {
			if !got[w] {
				return false
			}
		}
		return len(got) == len(want)
	}
}

// TestNodeRenewsItsLeaseWhileAnotherRegisters holds one node's
// registration on the server for a minute of the clock: the other node
// registers meanwhile and renews its Lease on schedule, so a slow
// registration of one node never lets another's Lease lapse; once the
// held request is served the first node comes up as well.
func TestNodeRenewsItsLeaseWhileAnotherRegisters(t *testing.T) {
	clock := fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{Clock: clock, NoNodeTaint: true})
	srv.DelayNext(fakeapiserver.DelayRule{Match: fakeapiserver.Match{Verb: "create", Resource: "nodes"}, Count: 1, Delay: time.Minute})
	client, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(client.CloseIdleConnections)
	m, err := controllers.New(client, controllers.Options{Nodes: 2, Clock: cluster.ServerClock{C: clock}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); assert.NoError(t, <-done) })
	c := &cluster.Cluster{Server: srv, Client: client}

	start := clock.Now()
	leases := cluster.Await(t, c, "leases.v1.coordination.k8s.io", "one node registered", func(ls []*api.Lease) bool {
		return len(ls) == 1
	})
	up := leases[0].Name
	held := map[string]string{"node-1": "node-2", "node-2": "node-1"}[up]
	require.NotEmpty(t, held, "unexpected lease %q", up)

	clock.Step(10 * time.Second)
	cluster.Await(t, c, "leases.v1.coordination.k8s.io", up+" renewed while "+held+" registers", renewedSince(start.Add(10*time.Second), up))
	cluster.Await(t, c, "nodes", held+" still registering", func(ns []*api.Node) bool { return len(ns) == 1 })

	clock.Step(50 * time.Second)
	cluster.Await(t, c, "nodes", "both nodes ready", func(ns []*api.Node) bool {
		return len(ns) == 2 && api.IsNodeReady(ns[0]) && api.IsNodeReady(ns[1])
	})
}

// TestNodeMarkedUnknownReportsReadyAgain marks a running node's
// conditions Unknown, as the node lifecycle controller does when a Lease
// renewal comes late: at its next beat of the clock the node reports
// itself Ready again, as a real kubelet's status update does.
func TestNodeMarkedUnknownReportsReadyAgain(t *testing.T) {
	clock := fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := cluster.Start(t, cluster.Options{Server: fakeapiserver.Options{Clock: clock}, Nodes: 1})
	n := cluster.AwaitNamed(t, c, "nodes", "", "node-1", "node-1 ready", api.IsNodeReady)

	st := n.Status
	st.Conditions = nil
	for _, cond := range n.Status.Conditions {
		cond.Status, cond.Reason, cond.Message = api.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
		st.Conditions = append(st.Conditions, cond)
	}
	var marked api.Node
	require.NoError(t, kit.PutStatus(context.Background(), c.Client, kit.Target{Resource: "nodes"}, "v1", "Node", &n.ObjectMeta, st, &marked))
	nodes, err := kit.Shared[*api.Node](c.Manager.Env(), "nodes")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), cluster.AwaitTimeout)
	defer cancel()
	require.NoError(t, nodes.WaitForFreshness(ctx, marked.ResourceVersion), "the nodes never saw the Unknown status")

	clock.Step(10 * time.Second)
	n = cluster.AwaitNamed(t, c, "nodes", "", "node-1", "node-1 ready again", api.IsNodeReady)
	ready := n.Status.Condition(api.NodeReady)
	assert.Equal(t, "KubeletReady", ready.Reason)
	assert.Equal(t, clock.Now(), ready.LastTransitionTime.Time)
}
