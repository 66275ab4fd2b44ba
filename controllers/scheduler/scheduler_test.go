package scheduler_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

var pods = kit.Target{Resource: "pods", Namespace: "default"}

func pod(name string, spec map[string]any) map[string]any {
	if spec["containers"] == nil {
		spec["containers"] = []map[string]any{{"name": "c", "image": "nginx"}}
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "namespace": "default"}, "spec": spec}
}

func startWithNodes(t *testing.T, n int) *cluster.Cluster {
	c := cluster.Start(t, cluster.Options{Controllers: []string{controllers.Scheduler}, Nodes: n})
	cluster.Await(t, c, "nodes", "ready nodes", func(ns []*api.Node) bool {
		ready := 0
		for _, node := range ns {
			if api.IsNodeReady(node) {
				ready++
			}
		}
		return ready == n
	})
	return c
}

func awaitPod(t *testing.T, c *cluster.Cluster, name, what string, cond func(*api.Pod) bool) *api.Pod {
	t.Helper()
	return cluster.AwaitNamed(t, c, "pods", "default", name, what, cond)
}

// TestSchedulerHonoursNodeSelectorAndTaints binds a pod with a
// nodeSelector to the one node that has the label, and a pod that
// tolerates a NoSchedule taint to the tainted node it alone may use.
func TestSchedulerHonoursNodeSelectorAndTaints(t *testing.T) {
	c := startWithNodes(t, 3)
	ctx := context.Background()
	nodes := kit.Target{Resource: "nodes"}
	n2, n3 := nodes, nodes
	n2.Name, n3.Name = "node-2", "node-3"
	require.NoError(t, kit.MergePatch(ctx, c.Client, n2, "", map[string]any{"metadata": map[string]any{"labels": map[string]string{"disk": "ssd"}}}, nil))
	taint := []map[string]string{{"key": "dedicated", "value": "db", "effect": "NoSchedule"}}
	require.NoError(t, kit.MergePatch(ctx, c.Client, n3, "", map[string]any{"spec": map[string]any{"taints": taint}}, nil))
	require.NoError(t, kit.MergePatch(ctx, c.Client, kit.Target{Resource: "nodes", Name: "node-1"}, "", map[string]any{"spec": map[string]any{"taints": taint}}, nil))

	require.NoError(t, kit.Create(ctx, c.Client, pods, pod("ssd", map[string]any{"nodeSelector": map[string]string{"disk": "ssd"}}), nil))
	p := awaitPod(t, c, "ssd", "ssd bound", func(p *api.Pod) bool { return p.Spec.NodeName != "" })
	assert.Equal(t, "node-2", p.Spec.NodeName)

	// node-1 and node-3 carry the taint; this pod tolerates it and asks
	// for node-3 by its hostname label.
	tolerant := pod("db", map[string]any{
		"tolerations":  []map[string]string{{"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}},
		"nodeSelector": map[string]string{"kubernetes.io/hostname": "node-3"},
	})
	require.NoError(t, kit.Create(ctx, c.Client, pods, tolerant, nil))
	p = awaitPod(t, c, "db", "db bound", func(p *api.Pod) bool { return p.Spec.NodeName != "" })
	assert.Equal(t, "node-3", p.Spec.NodeName)
}

// TestSchedulerReportsUnschedulable leaves a pod that fits nowhere
// Pending with PodScheduled=False, reason Unschedulable, and the real
// scheduler's message, and a FailedScheduling event written through
// events.k8s.io/v1 as kube-scheduler writes it (read here through
// core/v1, as kubectl describe reads it); a node that makes room lets it
// schedule, with its Scheduled event.
func TestSchedulerReportsUnschedulable(t *testing.T) {
	c := startWithNodes(t, 2)
	ctx := context.Background()
	big := pod("big", map[string]any{"containers": []map[string]any{{"name": "c", "image": "nginx", "resources": map[string]any{"requests": map[string]string{"cpu": "6"}}}}})
	require.NoError(t, kit.Create(ctx, c.Client, pods, big, nil))
	want := "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
	p := awaitPod(t, c, "big", "PodScheduled=False", func(p *api.Pod) bool {
		cond := p.Status.Condition(api.PodScheduled)
		return cond != nil && cond.Status == api.ConditionFalse
	})
	cond := p.Status.Condition(api.PodScheduled)
	assert.Equal(t, "Unschedulable", cond.Reason)
	assert.Equal(t, want, cond.Message)
	assert.Equal(t, api.PodPending, p.Status.Phase)
	assert.Empty(t, p.Spec.NodeName)
	evs := cluster.Await(t, c, "events", "FailedScheduling", func(es []*api.Event) bool {
		for _, e := range es {
			if e.Reason == "FailedScheduling" && e.InvolvedObject.Name == "big" {
				return true
			}
		}
		return false
	})
	for _, e := range evs {
		if e.Reason == "FailedScheduling" {
			assert.Equal(t, api.EventWarning, e.Type)
			assert.Equal(t, want, e.Message)
			assert.Equal(t, "default-scheduler", e.ReportingComponent)
			assert.True(t, strings.HasPrefix(e.ReportingInstance, "default-scheduler-"), e.ReportingInstance)
			assert.Equal(t, "Scheduling", e.Action)
			assert.False(t, e.EventTime.IsZero(), "an events.k8s.io/v1 Event has its event time")
			assert.Empty(t, e.Source.Component, "events.k8s.io/v1 leaves the deprecated source unset")
		}
	}

	// A bigger node arrives: the pod is retried and bound to it.
	node := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "huge"}}
	require.NoError(t, kit.Create(ctx, c.Client, kit.Target{Resource: "nodes"}, node, nil))
	var cur api.Node
	require.NoError(t, c.Client.Get().Resource("nodes").Name("huge").Do(ctx).Into(&cur))
	st := map[string]any{"allocatable": map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110"},
		"conditions": []map[string]string{{"type": "Ready", "status": "True"}}}
	require.NoError(t, kit.PutStatus(ctx, c.Client, kit.Target{Resource: "nodes"}, "v1", "Node", &cur.ObjectMeta, st, nil))
	p = awaitPod(t, c, "big", "big bound", func(p *api.Pod) bool { return p.Spec.NodeName != "" })
	assert.Equal(t, "huge", p.Spec.NodeName)
	cluster.Await(t, c, "events", "Scheduled", func(es []*api.Event) bool {
		for _, e := range es {
			if e.Reason == "Scheduled" && e.InvolvedObject.Name == "big" {
				return e.Action == "Binding" && e.Message == "Successfully assigned default/big to huge" && e.ReportingComponent == "default-scheduler"
			}
		}
		return false
	})
}
