package deployment_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
)

var deployments = kit.Target{Group: "apps", Version: "v1", Resource: "deployments", Namespace: "default"}

func deploymentBody(name string, replicas int32, image string, strategy map[string]any) map[string]any {
	spec := map[string]any{
		"replicas": replicas,
		"selector": map[string]any{"matchLabels": map[string]string{"app": name}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]string{"app": name}},
			"spec":     map[string]any{"containers": []map[string]any{{"name": "web", "image": image}}},
		},
	}
	if strategy != nil {
		spec["strategy"] = strategy
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "namespace": "default"}, "spec": spec}
}

func start(t *testing.T, opts cluster.Options) *cluster.Cluster {
	opts.Controllers = controllers.All
	if opts.Nodes == 0 {
		opts.Nodes = 3
	}
	return cluster.Start(t, opts)
}

func setImage(t *testing.T, c *cluster.Cluster, name, image string) {
	t.Helper()
	target := deployments
	target.Name = name
	patch := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []map[string]any{{"name": "web", "image": image}}}}}}
	require.NoError(t, kit.MergePatch(context.Background(), c.Client, target, "", patch, nil))
}

func condition(d *api.Deployment, typ string) api.DeploymentCondition {
	if c := d.Status.Condition(typ); c != nil {
		return *c
	}
	return api.DeploymentCondition{}
}

func awaitComplete(t *testing.T, c *cluster.Cluster, name string) *api.Deployment {
	t.Helper()
	return cluster.AwaitNamed(t, c, "deployments.v1.apps", "default", name, name+" complete", func(d *api.Deployment) bool {
		p := condition(d, api.DeploymentProgressing)
		return d.Status.ObservedGeneration == d.Generation && d.Status.UpdatedReplicas == d.SpecReplicas() &&
			d.Status.AvailableReplicas == d.SpecReplicas() && d.Status.Replicas == d.SpecReplicas() &&
			p.Reason == "NewReplicaSetAvailable"
	})
}

// TestDeploymentRollsOutToComplete creates a Deployment of 3: one
// ReplicaSet named after the template hash with revision 1, three ready
// pods, and the status and conditions of a complete rollout.
func TestDeploymentRollsOutToComplete(t *testing.T) {
	c := start(t, cluster.Options{})
	require.NoError(t, kit.Create(context.Background(), c.Client, deployments, deploymentBody("web", 3, "nginx", nil), nil))
	d := awaitComplete(t, c, "web")

	assert.Equal(t, int32(3), d.Status.ReadyReplicas)
	assert.Equal(t, int32(0), d.Status.UnavailableReplicas)
	assert.Equal(t, "1", d.Annotations["deployment.kubernetes.io/revision"])
	avail := condition(d, api.DeploymentAvailable)
	assert.Equal(t, api.ConditionTrue, avail.Status)
	assert.Equal(t, "MinimumReplicasAvailable", avail.Reason)
	assert.Equal(t, "Deployment has minimum availability.", avail.Message)
	prog := condition(d, api.DeploymentProgressing)
	assert.Equal(t, api.ConditionTrue, prog.Status)

	rss := cluster.Await(t, c, "replicasets.v1.apps", "one replica set", func(rss []*api.ReplicaSet) bool { return len(rss) == 1 })
	rs := rss[0]
	hash := rs.Labels[api.PodTemplateHashLabel]
	require.NotEmpty(t, hash)
	assert.Equal(t, "web-"+hash, rs.Name)
	assert.Equal(t, fmt.Sprintf("ReplicaSet %q has successfully progressed.", rs.Name), prog.Message)
	assert.Equal(t, "1", rs.Annotations["deployment.kubernetes.io/revision"])
	assert.Equal(t, "3", rs.Annotations["deployment.kubernetes.io/desired-replicas"])
	assert.Equal(t, "4", rs.Annotations["deployment.kubernetes.io/max-replicas"])
	assert.Equal(t, hash, rs.Spec.Selector.MatchLabels[api.PodTemplateHashLabel])
	assert.Equal(t, hash, rs.Spec.Template.Metadata.Labels[api.PodTemplateHashLabel])
	assert.Equal(t, int32(3), rs.Status.ReadyReplicas)
}

// sizes is one observed state of a rollout: each ReplicaSet's spec and
// available replicas, by name.
type sizes map[string][2]int32

// recordSizes watches the ReplicaSets of a Deployment and calls check on
// every state seen until done says the rollout finished.
func recordSizes(t *testing.T, c *cluster.Cluster, check func(sizes) error, done func(sizes) bool) []sizes {
	t.Helper()
	var seen []sizes
	ok := cluster.Watch(t, c, "replicasets.v1.apps", func(ctx context.Context, inf *informer.Informer[*api.ReplicaSet], changed func() <-chan struct{}) bool {
		for {
			ch := changed()
			s := sizes{}
			for _, rs := range inf.Indexer().List() {
				s[rs.Name] = [2]int32{rs.SpecReplicas(), rs.Status.AvailableReplicas}
			}
			if len(seen) == 0 || fmt.Sprint(seen[len(seen)-1]) != fmt.Sprint(s) {
				seen = append(seen, s)
				if err := check(s); err != nil {
					t.Errorf("state %v: %v", s, err)
				}
			}
			if done(s) {
				return true
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return false
			}
		}
	})
	require.True(t, ok, "rollout did not finish; states seen: %v", seen)
	return seen
}

// TestDeploymentRollingUpdateHonoursSurgeAndUnavailable rolls a
// Deployment of 4 with maxSurge 1 and maxUnavailable 0 to a new image:
// at no time do the ReplicaSets ask for more than 5 pods or have fewer
// than 4 available, and the old ReplicaSet ends at 0 with revision 1
// while the new one has revision 2.
func TestDeploymentRollingUpdateHonoursSurgeAndUnavailable(t *testing.T) {
	c := start(t, cluster.Options{})
	strategy := map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": 1, "maxUnavailable": 0}}
	require.NoError(t, kit.Create(context.Background(), c.Client, deployments, deploymentBody("web", 4, "nginx:1", strategy), nil))
	awaitComplete(t, c, "web")

	setImage(t, c, "web", "nginx:2")
	total := func(s sizes) (spec, avail int32) {
		for _, v := range s {
			spec += v[0]
			avail += v[1]
		}
		return spec, avail
	}
	states := recordSizes(t, c, func(s sizes) error {
		spec, avail := total(s)
		if spec > 5 {
			return fmt.Errorf("%d pods asked for, more than replicas+maxSurge=5", spec)
		}
		if len(s) == 2 && avail < 4 {
			return fmt.Errorf("%d available, fewer than replicas-maxUnavailable=4", avail)
		}
		return nil
	}, func(s sizes) bool {
		if len(s) != 2 {
			return false
		}
		zero, full := 0, 0
		for _, v := range s {
			switch v {
			case [2]int32{0, 0}:
				zero++
			case [2]int32{4, 4}:
				full++
			}
		}
		return zero == 1 && full == 1
	})
	assert.Greater(t, len(states), 3, "a rollout in steps: %v", states)

	d := awaitComplete(t, c, "web")
	assert.Equal(t, "2", d.Annotations["deployment.kubernetes.io/revision"])
	rss := cluster.Await(t, c, "replicasets.v1.apps", "two replica sets", func(rss []*api.ReplicaSet) bool { return len(rss) == 2 })
	for _, rs := range rss {
		if rs.SpecReplicas() == 0 {
			assert.Equal(t, "1", rs.Annotations["deployment.kubernetes.io/revision"], rs.Name)
		} else {
			assert.Equal(t, "2", rs.Annotations["deployment.kubernetes.io/revision"], rs.Name)
		}
	}
}

// TestDeploymentRollbackReusesOldReplicaSet puts the first template back
// (what kubectl rollout undo does): the first ReplicaSet is the new one
// again, with revision 3 and revision-history 1.
func TestDeploymentRollbackReusesOldReplicaSet(t *testing.T) {
	c := start(t, cluster.Options{})
	require.NoError(t, kit.Create(context.Background(), c.Client, deployments, deploymentBody("web", 2, "nginx:1", nil), nil))
	awaitComplete(t, c, "web")
	firstRS := cluster.Await(t, c, "replicasets.v1.apps", "first replica set", func(rss []*api.ReplicaSet) bool { return len(rss) == 1 })[0].Name
	setImage(t, c, "web", "nginx:2")
	cluster.Await(t, c, "deployments.v1.apps", "revision 2", func(ds []*api.Deployment) bool {
		return len(ds) == 1 && ds[0].Annotations["deployment.kubernetes.io/revision"] == "2"
	})
	awaitComplete(t, c, "web")
	setImage(t, c, "web", "nginx:1")
	rss := cluster.Await(t, c, "replicasets.v1.apps", "rolled back", func(rss []*api.ReplicaSet) bool {
		for _, rs := range rss {
			if rs.Name == firstRS && rs.Annotations["deployment.kubernetes.io/revision"] == "3" && rs.Status.AvailableReplicas == 2 {
				return true
			}
		}
		return false
	})
	require.Len(t, rss, 2, "no third ReplicaSet")
	for _, rs := range rss {
		if rs.Name == firstRS {
			assert.Equal(t, "1", rs.Annotations["deployment.kubernetes.io/revision-history"])
		}
	}
	d := awaitComplete(t, c, "web")
	assert.Equal(t, "3", d.Annotations["deployment.kubernetes.io/revision"])
}

// TestDeploymentRecreateScalesDownFirst rolls a Recreate Deployment: the
// new ReplicaSet gets pods only once the old one has none.
func TestDeploymentRecreateScalesDownFirst(t *testing.T) {
	c := start(t, cluster.Options{})
	require.NoError(t, kit.Create(context.Background(), c.Client, deployments, deploymentBody("web", 3, "nginx:1", map[string]any{"type": "Recreate"}), nil))
	awaitComplete(t, c, "web")
	setImage(t, c, "web", "nginx:2")
	recordSizes(t, c, func(s sizes) error {
		busy := 0
		for _, v := range s {
			if v[0] > 0 {
				busy++
			}
		}
		if busy > 1 {
			return fmt.Errorf("two ReplicaSets with pods at once")
		}
		return nil
	}, func(s sizes) bool {
		for _, v := range s {
			if v == [2]int32{3, 3} && len(s) == 2 {
				return true
			}
		}
		return false
	})
}

// TestDeploymentProgressDeadlineExceeded rolls out pods that never turn
// ready: once progressDeadlineSeconds pass on the cluster's clock with no
// progress, Progressing is False with ProgressDeadlineExceeded, and
// Available stays False.
func TestDeploymentProgressDeadlineExceeded(t *testing.T) {
	clock := newClock()
	c := start(t, cluster.Options{Server: serverOptions(clock)})
	body := deploymentBody("web", 2, "example/never-ready", nil)
	body["spec"].(map[string]any)["progressDeadlineSeconds"] = 30
	require.NoError(t, kit.Create(context.Background(), c.Client, deployments, body, nil))
	// Once both pods exist, nothing can progress any more: the deadline
	// counts from this status.
	cluster.Await(t, c, "deployments.v1.apps", "rollout stalled", func(ds []*api.Deployment) bool {
		return len(ds) == 1 && ds[0].Status.Replicas == 2 && ds[0].Status.UpdatedReplicas == 2 &&
			condition(ds[0], api.DeploymentProgressing).Reason == "ReplicaSetUpdated"
	})
	clock.Step(31 * time.Second)
	ds := cluster.Await(t, c, "deployments.v1.apps", "deadline exceeded", func(ds []*api.Deployment) bool {
		return len(ds) == 1 && condition(ds[0], api.DeploymentProgressing).Reason == "ProgressDeadlineExceeded"
	})
	p := condition(ds[0], api.DeploymentProgressing)
	assert.Equal(t, api.ConditionFalse, p.Status)
	assert.Regexp(t, `^ReplicaSet "web-[a-z0-9]+" has timed out progressing\.$`, p.Message)
	a := condition(ds[0], api.DeploymentAvailable)
	assert.Equal(t, api.ConditionFalse, a.Status)
	assert.Equal(t, "MinimumReplicasUnavailable", a.Reason)
}
