package replicaset_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

func ptr[T any](v T) *T { return &v }

func replicaSet(name string, replicas int32) map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]string{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]string{"app": name}},
				"spec":     map[string]any{"containers": []map[string]any{{"name": "web", "image": "nginx"}}},
			},
		},
	}
}

func ownedPods(pods []*api.Pod, rs string) (active []*api.Pod) {
	for _, p := range pods {
		if ref := api.ControllerOf(&p.ObjectMeta); ref != nil && ref.Name == rs && api.IsPodActive(p) {
			active = append(active, p)
		}
	}
	return active
}

// TestReplicaSetCreatesScalesAndReportsStatus creates a ReplicaSet of 3 on
// two simulated nodes: three pods are created, scheduled, run and turn
// ready, and the status says so; scaled to 1, two pods go and the status
// follows.
func TestReplicaSetCreatesScalesAndReportsStatus(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Controllers: []string{controllers.ReplicaSet, controllers.Scheduler}, Nodes: 2})
	ctx := context.Background()
	cluster.Await(t, c, "nodes", "two ready nodes", func(ns []*api.Node) bool {
		return len(ns) == 2 && api.IsNodeReady(ns[0]) && api.IsNodeReady(ns[1])
	})
	t0 := kit.Target{Group: "apps", Version: "v1", Resource: "replicasets", Namespace: "default"}
	require.NoError(t, kit.Create(ctx, c.Client, t0, replicaSet("web", 3), nil))

	rss := cluster.Await(t, c, "replicasets.v1.apps", "web to have 3 ready replicas", func(rss []*api.ReplicaSet) bool {
		return len(rss) == 1 && rss[0].Status.ReadyReplicas == 3 && rss[0].Status.AvailableReplicas == 3
	})
	st := rss[0].Status
	assert.Equal(t, int32(3), st.Replicas)
	assert.Equal(t, int32(3), st.FullyLabeledReplicas)
	assert.Equal(t, rss[0].Generation, st.ObservedGeneration)
	assert.Equal(t, ptr(int32(0)), st.TerminatingReplicas)

	pods := ownedPods(cluster.Await(t, c, "pods", "3 running pods", func(ps []*api.Pod) bool { return len(ownedPods(ps, "web")) == 3 }), "web")
	nodes := map[string]int{}
	for _, p := range pods {
		assert.Equal(t, api.PodRunning, p.Status.Phase, p.Name)
		assert.True(t, api.IsPodReady(p), p.Name)
		assert.Regexp(t, `^web-[a-z0-9]{5}$`, p.Name)
		nodes[p.Spec.NodeName]++
	}
	assert.Len(t, nodes, 2, "three pods spread over two nodes: %v", nodes)

	t1 := t0
	t1.Name = "web"
	require.NoError(t, kit.MergePatch(ctx, c.Client, t1, "", map[string]any{"spec": map[string]any{"replicas": 1}}, nil))
	cluster.Await(t, c, "replicasets.v1.apps", "web scaled to 1", func(rss []*api.ReplicaSet) bool {
		s := rss[0].Status
		return s.Replicas == 1 && s.ReadyReplicas == 1 && s.TerminatingReplicas != nil && *s.TerminatingReplicas == 0
	})
	cluster.Await(t, c, "pods", "two pods deleted", func(ps []*api.Pod) bool { return len(ps) == 1 })
}
