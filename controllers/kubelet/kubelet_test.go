package kubelet_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/fakeapiserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func boundPod(name, node string, annotations map[string]string, grace int) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "default", "annotations": annotations},
		"spec": map[string]any{"nodeName": node, "terminationGracePeriodSeconds": grace,
			"containers": []map[string]any{{"name": "c", "image": "nginx"}}},
	}
}

func find(ps []*api.Pod, name string) *api.Pod {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// TestNodesRegisterAndRenewLeases sees three Ready nodes with capacity
// and a Lease each, renewed when the clock moves; a stopped node's Lease
// is not.
func TestNodesRegisterAndRenewLeases(t *testing.T) {
	clock := fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := cluster.Start(t, cluster.Options{Server: fakeapiserver.Options{Clock: clock}, Nodes: 3})
	nodes := cluster.Await(t, c, "nodes", "three ready nodes", func(ns []*api.Node) bool {
		return len(ns) == 3 && api.IsNodeReady(ns[0]) && api.IsNodeReady(ns[1]) && api.IsNodeReady(ns[2])
	})
	for _, n := range nodes {
		assert.Equal(t, "4", n.Status.Allocatable["cpu"], n.Name)
		assert.Equal(t, "110", n.Status.Capacity["pods"], n.Name)
		assert.Equal(t, n.Name, n.Labels["kubernetes.io/hostname"])
	}
	start := clock.Now()
	cluster.Await(t, c, "leases.v1.coordination.k8s.io", "three leases", renewedSince(start, "node-1", "node-2", "node-3"))

	require.True(t, c.Kubelet.StopNode("node-2"))
	later := start.Add(10 * time.Second)
	clock.Step(10 * time.Second)
	cluster.Await(t, c, "leases.v1.coordination.k8s.io", "two renewed leases", renewedSince(later, "node-1", "node-3"))
}

// TestGracefulDeletionHonoursStopDelay deletes a running pod whose
// container takes 5s to stop: it stays, terminating, until the clock
// passes 5s, then its final status is written and it is gone; its log
// says it stopped.
func TestGracefulDeletionHonoursStopDelay(t *testing.T) {
	clock := fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := cluster.Start(t, cluster.Options{Server: fakeapiserver.Options{Clock: clock}, Nodes: 1})
	ctx := context.Background()
	pods := kit.Target{Resource: "pods", Namespace: "default"}
	require.NoError(t, kit.Create(ctx, c.Client, pods, boundPod("slow", "node-1", map[string]string{"sim.kubecache.dev/stop-after": "5s"}, 30), nil))
	cluster.Await(t, c, "pods", "slow ready", func(ps []*api.Pod) bool { p := find(ps, "slow"); return p != nil && api.IsPodReady(p) })

	lines, ok := c.Kubelet.Logs("default", "slow", "")
	require.True(t, ok)
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], "simulated container c started (image nginx, restart 0)")

	target := pods
	target.Name = "slow"
	require.NoError(t, kit.Delete(ctx, c.Client, target, "", nil))
	p := find(cluster.Await(t, c, "pods", "slow terminating", func(ps []*api.Pod) bool {
		p := find(ps, "slow")
		return p != nil && p.DeletionTimestamp != nil
	}), "slow")
	assert.Equal(t, int64(30), *p.DeletionGracePeriodSeconds)
	clock.Step(3 * time.Second)
	assert.NotNil(t, find(cluster.Await(t, c, "pods", "slow still there", func(ps []*api.Pod) bool { return find(ps, "slow") != nil }), "slow"))
	clock.Step(3 * time.Second)
	cluster.Await(t, c, "pods", "slow gone", func(ps []*api.Pod) bool { return find(ps, "slow") == nil })
	lines, _ = c.Kubelet.Logs("default", "slow", "c")
	assert.True(t, strings.HasSuffix(lines[len(lines)-1], "stopping: pod deleted"), "%q", lines)
}
