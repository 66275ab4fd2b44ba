package disruption_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

// multipleReason is the reason of the warning about a pod several
// budgets select.
const multipleReason = "MultiplePodDisruptionBudgets"

// awaitMultipleWarnings waits until the MultiplePodDisruptionBudgets
// warnings about pod name, their counts added up (a repeat is counted on
// the first event), number n, and returns those events.
func awaitMultipleWarnings(t *testing.T, c *cluster.Cluster, name string, n int32) []*api.Event {
	t.Helper()
	var found []*api.Event
	cluster.Await(t, c, "events", fmt.Sprintf("%d %s warnings about %s", n, multipleReason, name), func(es []*api.Event) bool {
		found = found[:0]
		var sum int32
		for _, e := range es {
			if e.InvolvedObject.Name == name && e.Reason == multipleReason {
				found = append(found, e)
				sum += e.Count
			}
		}
		return sum == n
	})
	return found
}

// TestPodOfSeveralBudgets: a pod two budgets select gets the real
// controller's warning, naming one of them, when it is added, updated and
// deleted; the eviction handler refuses to evict it. A pod one budget
// selects gets no warning.
func TestPodOfSeveralBudgets(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Controllers: []string{controllers.Disruption}})
	ctx := context.Background()
	require.NoError(t, kit.Create(ctx, c.Client, pdbs, budget("shared", map[string]any{"minAvailable": 1}), nil))
	byTier := map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
		"metadata": map[string]any{"name": "web-tier", "namespace": "default"},
		"spec": map[string]any{"maxUnavailable": 0, "selector": map[string]any{"matchExpressions": []map[string]any{
			{"key": "tier", "operator": "In", "values": []string{"web"}}}}}}
	require.NoError(t, kit.Create(ctx, c.Client, pdbs, byTier, nil))
	// The warning on a pod's add is only given if the controller already
	// holds both budgets: a budget's status written for its generation
	// says it does.
	for _, name := range []string{"shared", "web-tier"} {
		cluster.AwaitNamed(t, c, budgets, "default", name, "budget "+name+" synced", func(b *api.PodDisruptionBudget) bool {
			return b.Generation > 0 && b.Status.ObservedGeneration == b.Generation
		})
	}
	pod := func(name string, labels map[string]string) *api.Pod {
		t.Helper()
		p := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "namespace": "default", "labels": labels},
			"spec": map[string]any{"nodeName": "n1", "containers": []map[string]any{{"name": "c", "image": "nginx"}}}}
		var created api.Pod
		require.NoError(t, kit.Create(ctx, c.Client, pods, p, &created))
		return &created
	}
	pod("single", map[string]string{"app": "shared"})
	both := pod("both", map[string]string{"app": "shared", "tier": "web"})

	es := awaitMultipleWarnings(t, c, "both", 1)
	e := es[0]
	assert.Equal(t, api.EventWarning, e.Type)
	assert.Equal(t, "controllermanager", e.Source.Component)
	assert.Equal(t, api.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "default", Name: "both", UID: both.UID,
		ResourceVersion: both.ResourceVersion}, e.InvolvedObject)
	assert.Contains(t, []string{
		`Pod "default"/"both" matches multiple PodDisruptionBudgets.  Chose "shared" arbitrarily.`,
		`Pod "default"/"both" matches multiple PodDisruptionBudgets.  Chose "web-tier" arbitrarily.`,
	}, e.Message)

	// Running, the pod is one budgets guard; the update is warned about.
	st := api.PodStatus{Phase: api.PodRunning, Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}
	require.NoError(t, kit.PutStatus(ctx, c.Client, pods, "v1", "Pod", &both.ObjectMeta, st, nil))
	awaitMultipleWarnings(t, c, "both", 2)
	err := evict(c, "both")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")

	zero := int64(0)
	require.NoError(t, kit.Delete(ctx, c.Client, pods.Named("both"), "", &zero))
	awaitMultipleWarnings(t, c, "both", 3)
	// Events are written in the order recorded, so any warning about the
	// pod created first would be there by now.
	var single []string
	cluster.Await(t, c, "events", "the events so far", func(es []*api.Event) bool {
		for _, e := range es {
			if e.InvolvedObject.Name == "single" && e.Reason == multipleReason {
				single = append(single, e.Message)
			}
		}
		return true
	})
	assert.Empty(t, single, "no warning about a pod one budget selects")
}
