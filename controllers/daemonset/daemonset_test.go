package daemonset_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var daemonSets = kit.Target{Group: "apps", Version: "v1", Resource: "daemonsets", Namespace: "default"}

func dsBody(name string, podSpec map[string]any, spec map[string]any) map[string]any {
	podSpec["containers"] = []map[string]any{{"name": "agent", "image": "busybox"}}
	s := map[string]any{
		"selector": map[string]any{"matchLabels": map[string]string{"app": name}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": name}}, "spec": podSpec},
	}
	for k, v := range spec {
		s[k] = v
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": map[string]any{"name": name, "namespace": "default"}, "spec": s}
}

func start(t *testing.T, nodes int) *cluster.Cluster {
	c := cluster.Start(t, cluster.Options{Controllers: []string{controllers.DaemonSet, controllers.Scheduler}, Nodes: nodes})
	cluster.Await(t, c, "nodes", "the nodes", func(ns []*api.Node) bool { return len(ns) == nodes })
	return c
}

func patchNode(t *testing.T, c *cluster.Cluster, name string, patch map[string]any) {
	t.Helper()
	require.NoError(t, kit.MergePatch(context.Background(), c.Client, kit.Target{Resource: "nodes", Name: name}, "", patch, nil))
}

// daemonsOn maps node names to the live pods of DaemonSet name there.
func daemonsOn(ps []*api.Pod, name string) map[string][]*api.Pod {
	out := map[string][]*api.Pod{}
	for _, p := range ps {
		if ref := api.ControllerOf(&p.ObjectMeta); ref != nil && ref.Name == name && p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
			out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
		}
	}
	return out
}

// TestDaemonSetRunsOnEligibleNodes runs a DaemonSet on three nodes, one
// of them tainted NoSchedule: one daemon on each of the other two, none
// on the tainted node, and the status says so. A second DaemonSet with a
// nodeSelector gets a daemon on a node once it is labelled, and loses it
// when the label goes.
func TestDaemonSetRunsOnEligibleNodes(t *testing.T) {
	c := start(t, 3)
	patchNode(t, c, "node-3", map[string]any{"spec": map[string]any{"taints": []map[string]string{{"key": "dedicated", "value": "db", "effect": "NoSchedule"}}}})
	cluster.AwaitNamed(t, c, "nodes", "", "node-3", "node-3 tainted", func(n *api.Node) bool { return len(n.Spec.Taints) == 1 })
	require.NoError(t, kit.Create(context.Background(), c.Client, daemonSets, dsBody("agent", map[string]any{}, nil), nil))

	ds := cluster.AwaitNamed(t, c, "daemonsets.v1.apps", "default", "agent", "two daemons ready", func(d *api.DaemonSet) bool {
		return d.Status.NumberReady == 2 && d.Status.ObservedGeneration == d.Generation
	})
	st := ds.Status
	assert.Equal(t, int32(2), st.DesiredNumberScheduled)
	assert.Equal(t, int32(2), st.CurrentNumberScheduled)
	assert.Equal(t, int32(2), st.UpdatedNumberScheduled)
	assert.Equal(t, int32(2), st.NumberAvailable)
	assert.Equal(t, int32(0), st.NumberMisscheduled)
	assert.Equal(t, int32(0), st.NumberUnavailable)
	on := daemonsOn(cluster.Await(t, c, "pods", "two daemons", func(ps []*api.Pod) bool { return len(daemonsOn(ps, "agent")) == 2 }), "agent")
	assert.Len(t, on["node-1"], 1)
	assert.Len(t, on["node-2"], 1)
	p := on["node-1"][0]
	assert.Regexp(t, `^agent-[a-z0-9]{5}$`, p.Name)
	assert.NotEmpty(t, p.Labels[api.ControllerRevisionHashLabel])
	assert.Equal(t, "1", p.Labels[api.PodTemplateGenerationLabel])
	assert.True(t, api.Tolerates(p.Spec.Tolerations, api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintNoExecute}))

	require.NoError(t, kit.Create(context.Background(), c.Client, daemonSets, dsBody("ssd", map[string]any{"nodeSelector": map[string]string{"disk": "ssd"}}, nil), nil))
	cluster.AwaitNamed(t, c, "daemonsets.v1.apps", "default", "ssd", "nothing desired", func(d *api.DaemonSet) bool {
		return d.Status.ObservedGeneration == d.Generation && d.Status.DesiredNumberScheduled == 0
	})
	patchNode(t, c, "node-2", map[string]any{"metadata": map[string]any{"labels": map[string]string{"disk": "ssd"}}})
	cluster.Await(t, c, "pods", "a daemon on node-2", func(ps []*api.Pod) bool {
		on := daemonsOn(ps, "ssd")
		return len(on) == 1 && len(on["node-2"]) == 1
	})
	patchNode(t, c, "node-2", map[string]any{"metadata": map[string]any{"labels": map[string]any{"disk": nil}}})
	cluster.Await(t, c, "pods", "the daemon gone from node-2", func(ps []*api.Pod) bool { return len(daemonsOn(ps, "ssd")) == 0 })
}

// TestDaemonSetRollingUpdateHonoursMaxUnavailable changes the image of a
// DaemonSet on three nodes with maxUnavailable 1: at no time do fewer
// than two nodes run an available daemon, and in the end every node runs
// one of the new revision.
func TestDaemonSetRollingUpdateHonoursMaxUnavailable(t *testing.T) {
	c := start(t, 3)
	body := dsBody("agent", map[string]any{}, map[string]any{"updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": 1}}})
	require.NoError(t, kit.Create(context.Background(), c.Client, daemonSets, body, nil))
	cluster.AwaitNamed(t, c, "daemonsets.v1.apps", "default", "agent", "three available", func(d *api.DaemonSet) bool {
		return d.Status.NumberAvailable == 3
	})
	oldHash := ""
	for _, ps := range daemonsOn(cluster.Await(t, c, "pods", "3 daemons", func(ps []*api.Pod) bool { return len(daemonsOn(ps, "agent")) == 3 }), "agent") {
		oldHash = ps[0].Labels[api.ControllerRevisionHashLabel]
	}

	ok := cluster.Watch(t, c, "pods", func(ctx context.Context, inf *informer.Informer[*api.Pod], changed func() <-chan struct{}) bool {
		tg := daemonSets
		tg.Name = "agent"
		patch := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []map[string]any{{"name": "agent", "image": "busybox:1.37"}}}}}}
		require.NoError(t, kit.MergePatch(ctx, c.Client, tg, "", patch, nil))
		for {
			ch := changed()
			on := daemonsOn(inf.Indexer().List(), "agent")
			available, updated := 0, 0
			for _, ps := range on {
				if api.IsPodReady(ps[0]) {
					available++
				}
				if ps[0].Labels[api.ControllerRevisionHashLabel] != oldHash && api.IsPodReady(ps[0]) {
					updated++
				}
			}
			if available < 2 {
				t.Errorf("only %d nodes run an available daemon: %v", available, on)
				return true
			}
			if updated == 3 {
				return true
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return false
			}
		}
	})
	require.True(t, ok, "the rolling update did not finish")
	ds := cluster.AwaitNamed(t, c, "daemonsets.v1.apps", "default", "agent", "three updated", func(d *api.DaemonSet) bool {
		return d.Status.UpdatedNumberScheduled == 3 && d.Status.NumberAvailable == 3
	})
	assert.Equal(t, int32(0), ds.Status.NumberUnavailable)
	cluster.Await(t, c, "controllerrevisions.v1.apps", "two revisions", func(rs []*api.ControllerRevision) bool { return len(rs) == 2 })
}

// TestDaemonSetRollingUpdateSurges rolls a DaemonSet on three nodes with
// maxSurge 1 and maxUnavailable 0: every node keeps a ready daemon
// throughout, at most one node runs two at a time, and in the end every
// node runs one of the new revision.
func TestDaemonSetRollingUpdateSurges(t *testing.T) {
	c := start(t, 3)
	body := dsBody("agent", map[string]any{}, map[string]any{"updateStrategy": map[string]any{"type": "RollingUpdate",
		"rollingUpdate": map[string]any{"maxUnavailable": 0, "maxSurge": 1}}})
	require.NoError(t, kit.Create(context.Background(), c.Client, daemonSets, body, nil))
	cluster.AwaitNamed(t, c, "daemonsets.v1.apps", "default", "agent", "three available", func(d *api.DaemonSet) bool {
		return d.Status.NumberAvailable == 3
	})
	oldHash := ""
	for _, ps := range daemonsOn(cluster.Await(t, c, "pods", "3 daemons", func(ps []*api.Pod) bool { return len(daemonsOn(ps, "agent")) == 3 }), "agent") {
		oldHash = ps[0].Labels[api.ControllerRevisionHashLabel]
	}

	sawSurge := false
	ok := cluster.Watch(t, c, "pods", func(ctx context.Context, inf *informer.Informer[*api.Pod], changed func() <-chan struct{}) bool {
		patch := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []map[string]any{{"name": "agent", "image": "busybox:1.37"}}}}}}
		require.NoError(t, kit.MergePatch(ctx, c.Client, daemonSets.Named("agent"), "", patch, nil))
		for {
			ch := changed()
			on := daemonsOn(inf.Indexer().List(), "agent")
			doubled, updated := 0, 0
			for node, ps := range on {
				ready := false
				for _, p := range ps {
					ready = ready || api.IsPodReady(p)
				}
				if !ready {
					t.Errorf("node %s has no ready daemon: %v", node, ps)
					return true
				}
				if len(ps) > 1 {
					doubled++
				}
				if len(ps) == 1 && ps[0].Labels[api.ControllerRevisionHashLabel] != oldHash && api.IsPodReady(ps[0]) {
					updated++
				}
			}
			if len(on) < 3 || doubled > 1 {
				t.Errorf("%d nodes run a daemon, %d of them two: %v", len(on), doubled, on)
				return true
			}
			sawSurge = sawSurge || doubled == 1
			if updated == 3 {
				return true
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return false
			}
		}
	})
	require.True(t, ok, "the rolling update did not finish")
	assert.True(t, sawSurge, "a new daemon ran beside an old one")
	cluster.AwaitNamed(t, c, "daemonsets.v1.apps", "default", "agent", "three updated", func(d *api.DaemonSet) bool {
		return d.Status.UpdatedNumberScheduled == 3 && d.Status.NumberAvailable == 3 && d.Status.NumberUnavailable == 0
	})
}
