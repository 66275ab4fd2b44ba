package disruption_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/disruption"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// t0 is the clusters' start.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// readyAfter is how long the pods of the tests' Deployments take to turn
// Ready once running, on the cluster's fake clock.
const readyAfter = 10 * time.Second

const budgets = "poddisruptionbudgets.v1.policy"

var (
	deployments = kit.Target{Group: "apps", Version: "v1", Resource: "deployments", Namespace: "default"}
	pdbs        = kit.Target{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Namespace: "default"}
	pods        = kit.Target{Resource: "pods", Namespace: "default"}
)

// start runs a cluster on a fake clock with the workload controllers, the
// scheduler, the disruption controller and two nodes.
func start(t *testing.T) (*cluster.Cluster, *fakeapiserver.FakeClock) {
	clock := fakeapiserver.NewFakeClock(t0)
	c := cluster.Start(t, cluster.Options{
		Server:      fakeapiserver.Options{Clock: clock},
		Controllers: []string{controllers.Deployment, controllers.ReplicaSet, controllers.Scheduler, controllers.Disruption},
		Nodes:       2,
	})
	return c, clock
}

// deployment is a Deployment of app whose pods turn Ready readyAfter
// after they start.
func deployment(app string, replicas int) map[string]any {
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": app, "namespace": "default"},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]string{"app": app}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": app}},
				"spec": map[string]any{"containers": []map[string]any{{"name": "web", "image": "nginx",
					"readinessProbe": map[string]any{"initialDelaySeconds": int(readyAfter / time.Second), "httpGet": map[string]any{"port": 80}}}}}}}}
}

// budget is a PodDisruptionBudget of the pods of app.
func budget(app string, spec map[string]any) map[string]any {
	spec["selector"] = map[string]any{"matchLabels": map[string]string{"app": app}}
	return map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
		"metadata": map[string]any{"name": app, "namespace": "default"}, "spec": spec}
}

// evict asks the server to evict pod name.
func evict(c *cluster.Cluster, name string) error {
	body := map[string]any{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": map[string]any{"name": name, "namespace": "default"}}
	return c.Client.Post().Namespace("default").Resource("pods").Name(name).SubResource("eviction").Body(body).Do(context.Background()).Error()
}

// counts is the part of a budget's status a test compares.
type counts struct {
	Expected, Desired, Current, Allowed int32
	Disrupted                           int
	Condition                           string
}

func countsOf(b *api.PodDisruptionBudget) counts {
	out := counts{Expected: b.Status.ExpectedPods, Desired: b.Status.DesiredHealthy, Current: b.Status.CurrentHealthy,
		Allowed: b.Status.DisruptionsAllowed, Disrupted: len(b.Status.DisruptedPods)}
	if cond := api.FindCondition(b.Status.Conditions, api.DisruptionAllowedCondition); cond != nil {
		out.Condition = fmt.Sprintf("%s/%s", cond.Status, cond.Reason)
	}
	return out
}

// awaitCounts waits until budget name's status, for its current
// generation, shows want.
func awaitCounts(t *testing.T, c *cluster.Cluster, name string, want counts) *api.PodDisruptionBudget {
	t.Helper()
	return cluster.AwaitNamed(t, c, budgets, "default", name, fmt.Sprintf("budget %s at %+v", name, want), func(b *api.PodDisruptionBudget) bool {
		return b.Status.ObservedGeneration == b.Generation && countsOf(b) == want
	})
}

// awaitRunning waits until n pods of app, none being deleted, are all
// running, and returns them.
func awaitRunning(t *testing.T, c *cluster.Cluster, app string, n int) []*api.Pod {
	t.Helper()
	var out []*api.Pod
	cluster.Await(t, c, "pods", fmt.Sprintf("%d running pods of %s", n, app), func(ps []*api.Pod) bool {
		out = out[:0]
		for _, p := range ps {
			if p.Labels["app"] == app && p.DeletionTimestamp == nil {
				if p.Status.Phase != api.PodRunning {
					return false
				}
				out = append(out, p)
			}
		}
		return len(out) == n
	})
	return out
}

// TestBudgetAllowsEvictionsWithinIt: a budget of minAvailable 2 over a
// Deployment of 3 allows no disruption until its pods are Ready, then
// one; the first eviction is granted and the second refused with the
// real server's message, until the replacement of the first is Ready.
func TestBudgetAllowsEvictionsWithinIt(t *testing.T) {
	c, clock := start(t)
	ctx := context.Background()
	require.NoError(t, kit.Create(ctx, c.Client, deployments, deployment("web", 3), nil))
	require.NoError(t, kit.Create(ctx, c.Client, pdbs, budget("web", map[string]any{"minAvailable": 2}), nil))

	running := awaitRunning(t, c, "web", 3)
	awaitCounts(t, c, "web", counts{Expected: 3, Desired: 2, Current: 0, Allowed: 0, Condition: "False/InsufficientPods"})
	require.Error(t, evict(c, running[0].Name), "no pod is Ready: the budget has no disruption to give")

	clock.Step(readyAfter)
	b := awaitCounts(t, c, "web", counts{Expected: 3, Desired: 2, Current: 3, Allowed: 1, Condition: "True/SufficientPods"})
	cond := api.FindCondition(b.Status.Conditions, api.DisruptionAllowedCondition)
	assert.Equal(t, b.Generation, cond.ObservedGeneration)
	assert.Equal(t, t0.Add(readyAfter), cond.LastTransitionTime.Time, "the condition moved when its status did")

	require.NoError(t, evict(c, running[0].Name))
	err := evict(c, running[1].Name)
	_, tooMany := rest.IsTooManyRequests(err)
	require.True(t, tooMany, "second eviction: %v", err)
	assert.Contains(t, err.Error(), "Cannot evict pod as it would violate the pod's disruption budget.")

	// The evicted pod is gone and its replacement runs, not Ready yet.
	awaitRunning(t, c, "web", 3)
	awaitCounts(t, c, "web", counts{Expected: 3, Desired: 2, Current: 2, Allowed: 0, Condition: "False/InsufficientPods"})
	clock.Step(readyAfter)
	awaitCounts(t, c, "web", counts{Expected: 3, Desired: 2, Current: 3, Allowed: 1, Condition: "True/SufficientPods"})
	require.NoError(t, evict(c, running[1].Name))
}

// awaitEvent waits for an event with reason about the object named name
// and returns it.
func awaitEvent(t *testing.T, c *cluster.Cluster, name, reason string) *api.Event {
	t.Helper()
	var found *api.Event
	cluster.Await(t, c, "events", fmt.Sprintf("event %s about %s", reason, name), func(es []*api.Event) bool {
		for _, e := range es {
			if e.InvolvedObject.Name == name && e.Reason == reason {
				found = e
				return true
			}
		}
		return false
	})
	return found
}

// TestBudgetPercentagesCountControllerScale: a percentage minAvailable
// and a maxUnavailable are resolved against the scale of the pods'
// Deployment, rounding up, and follow it when it scales; a selected pod
// without a controller gets the UnmanagedPods warning and does not count
// as expected; a pod whose controller has no scale fails the sync,
// which leaves the fail-safe status.
func TestBudgetPercentagesCountControllerScale(t *testing.T) {
	c, clock := start(t)
	ctx := context.Background()
	require.NoError(t, kit.Create(ctx, c.Client, deployments, deployment("half", 3), nil))
	require.NoError(t, kit.Create(ctx, c.Client, pdbs, budget("half", map[string]any{"minAvailable": "50%"}), nil))
	require.NoError(t, kit.Create(ctx, c.Client, deployments, deployment("most", 4), nil))
	require.NoError(t, kit.Create(ctx, c.Client, pdbs, budget("most", map[string]any{"maxUnavailable": "25%"}), nil))
	awaitRunning(t, c, "half", 3)
	awaitRunning(t, c, "most", 4)
	clock.Step(readyAfter)
	awaitCounts(t, c, "half", counts{Expected: 3, Desired: 2, Current: 3, Allowed: 1, Condition: "True/SufficientPods"})
	awaitCounts(t, c, "most", counts{Expected: 4, Desired: 3, Current: 4, Allowed: 1, Condition: "True/SufficientPods"})

	require.NoError(t, kit.MergePatch(ctx, c.Client, deployments.Named("half"), "", map[string]any{"spec": map[string]any{"replicas": 5}}, nil))
	awaitCounts(t, c, "half", counts{Expected: 5, Desired: 3, Current: 3, Allowed: 0, Condition: "False/InsufficientPods"})

	bare := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "bare", "namespace": "default", "labels": map[string]string{"app": "most"}},
		"spec": map[string]any{"containers": []map[string]any{{"name": "c", "image": "nginx"}}}}
	require.NoError(t, kit.Create(ctx, c.Client, pods, bare, nil))
	e := awaitEvent(t, c, "most", "UnmanagedPods")
	assert.Equal(t, api.EventWarning, e.Type)
	assert.Equal(t, "controllermanager", e.Source.Component)
	assert.Equal(t, "PodDisruptionBudget", e.InvolvedObject.Kind)
	assert.Contains(t, e.Message, "(selector: &LabelSelector{MatchLabels:map[string]string{app: most,},MatchExpressions:[]LabelSelectorRequirement{},})")

	// A ConfigMap that controls a pod exists (the garbage collector
	// keeps the pod) but has no scale.
	var owner api.ConfigMap
	require.NoError(t, kit.Create(ctx, c.Client, kit.Target{Resource: "configmaps", Namespace: "default"},
		map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "owner"}}, &owner))
	odd := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "odd", "namespace": "default", "labels": map[string]string{"app": "most"},
		"ownerReferences": []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner.UID, "controller": true}}},
		"spec": map[string]any{"containers": []map[string]any{{"name": "c", "image": "nginx"}}}}
	require.NoError(t, kit.Create(ctx, c.Client, pods, odd, nil))
	b := cluster.AwaitNamed(t, c, budgets, "default", "most", "the fail-safe status", func(b *api.PodDisruptionBudget) bool {
		cond := api.FindCondition(b.Status.Conditions, api.DisruptionAllowedCondition)
		return cond != nil && cond.Reason == api.SyncFailedReason
	})
	assert.Equal(t, int32(0), b.Status.DisruptionsAllowed)
	cond := api.FindCondition(b.Status.Conditions, api.DisruptionAllowedCondition)
	assert.Equal(t, api.ConditionFalse, cond.Status)
	assert.Equal(t, "configmaps does not implement the scale subresource", cond.Message)
	assert.Equal(t, "Failed to calculate the number of expected pods: configmaps does not implement the scale subresource",
		awaitEvent(t, c, "most", "CalculateExpectedPodCountFailed").Message)

	require.NoError(t, kit.Delete(ctx, c.Client, pods.Named("odd"), "", nil))
	// The bare pod, Ready, counts as healthy but not as expected.
	awaitCounts(t, c, "most", counts{Expected: 4, Desired: 3, Current: 5, Allowed: 2, Condition: "True/SufficientPods"})
}

// TestBudgetWithoutPods: a budget that selects nothing expects nothing
// and allows nothing, with the NoPods event.
func TestBudgetWithoutPods(t *testing.T) {
	c, _ := start(t)
	require.NoError(t, kit.Create(context.Background(), c.Client, pdbs, budget("none", map[string]any{"maxUnavailable": 1}), nil))
	awaitCounts(t, c, "none", counts{Condition: "False/InsufficientPods"})
	e := awaitEvent(t, c, "none", "NoPods")
	assert.Equal(t, api.EventNormal, e.Type)
	assert.Equal(t, "No matching pods found", e.Message)
}

// TestStaleDisruptionTargetIsCleared: a pod marked DisruptionTarget that
// is not deleted within two minutes gets the condition set False.
func TestStaleDisruptionTargetIsCleared(t *testing.T) {
	clock := fakeapiserver.NewFakeClock(t0)
	c := cluster.Start(t, cluster.Options{Server: fakeapiserver.Options{Clock: clock}, Controllers: []string{controllers.Disruption}})
	ctx := context.Background()
	p := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "marked", "namespace": "default"},
		"spec": map[string]any{"nodeName": "n1", "containers": []map[string]any{{"name": "c", "image": "nginx"}}}}
	var created api.Pod
	require.NoError(t, kit.Create(ctx, c.Client, pods, p, &created))
	st := api.PodStatus{Phase: api.PodRunning, Conditions: []api.PodCondition{{Type: api.PodDisruptionTarget, Status: api.ConditionTrue,
		Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: meta.NewTime(t0)}}}
	require.NoError(t, kit.PutStatus(ctx, c.Client, pods, "v1", "Pod", &created.ObjectMeta, st, nil))

	clock.Step(disruption.StalePodDisruptionTimeout - time.Second)
	marked := func(want api.ConditionStatus) func(*api.Pod) bool {
		return func(p *api.Pod) bool {
			cond := p.Status.Condition(api.PodDisruptionTarget)
			return cond != nil && cond.Status == want
		}
	}
	cluster.AwaitNamed(t, c, "pods", "default", "marked", "the condition still True", marked(api.ConditionTrue))
	clock.Step(time.Second)
	got := cluster.AwaitNamed(t, c, "pods", "default", "marked", "the condition False", marked(api.ConditionFalse))
	cond := got.Status.Condition(api.PodDisruptionTarget)
	assert.Empty(t, cond.Reason)
	assert.Equal(t, t0.Add(disruption.StalePodDisruptionTimeout), cond.LastTransitionTime.Time)
	assert.Equal(t, api.PodRunning, got.Status.Phase, "the rest of the status is kept")
}
