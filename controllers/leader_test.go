package controllers_test

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
	"github.com/kubecache/kubecache/informer/leaderelection"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startManager runs a Manager with the ReplicaSet controller under
// leader election as identity, until the returned stop is called.
func startManager(t *testing.T, c *cluster.Cluster, identity string) (*controllers.Manager, func()) {
	t.Helper()
	m, err := controllers.New(c.Client, controllers.Options{
		Controllers: []string{controllers.ReplicaSet},
		LeaderElection: &controllers.LeaderElection{Identity: identity,
			LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			assert.NoError(t, <-done)
		}
	}
	t.Cleanup(stop)
	return m, stop
}

func holder(c *cluster.Cluster, want string) func(*leaderelection.Lease) bool {
	return func(l *leaderelection.Lease) bool {
		return l.Spec.HolderIdentity != nil && (*l.Spec.HolderIdentity == want || (want == "" && *l.Spec.HolderIdentity != ""))
	}
}

// TestLeaderElectionRunsControllersOnce runs two Managers with the
// ReplicaSet controller against one server: one holds the
// kube-system/kube-controller-manager Lease and only it acts, so a
// ReplicaSet of 3 gets exactly 3 pods and nothing is deleted. Stopped,
// the leader hands the Lease over and the other takes over the work.
func TestLeaderElectionRunsControllersOnce(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	a, stopA := startManager(t, c, "a")
	cluster.AwaitNamed(t, c, "leases.v1.coordination.k8s.io", "kube-system", "kube-controller-manager", "a leads", holder(c, "a"))
	b, _ := startManager(t, c, "b")

	rs := map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{"replicas": 3, "selector": map[string]any{"matchLabels": map[string]string{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": "web"}},
				"spec": map[string]any{"containers": []map[string]any{{"name": "web", "image": "nginx"}}}}},
	}
	target := kit.Target{Group: "apps", Version: "v1", Resource: "replicasets", Namespace: "default"}
	require.NoError(t, kit.Create(context.Background(), c.Client, target, rs, nil))
	cluster.AwaitNamed(t, c, "replicasets.v1.apps", "default", "web", "3 replicas seen", func(r *api.ReplicaSet) bool { return r.Status.Replicas == 3 })
	assert.True(t, a.IsLeader())
	assert.False(t, b.IsLeader())
	pods := cluster.Await(t, c, "pods", "the pods", func([]*api.Pod) bool { return true })
	assert.Len(t, pods, 3, "two controllers acted on one ReplicaSet")
	for _, e := range cluster.Await(t, c, "events", "the events", func([]*api.Event) bool { return true }) {
		assert.NotEqual(t, "SuccessfulDelete", e.Reason, "a second controller deleted what the first made")
	}

	stopA()
	cluster.AwaitNamed(t, c, "leases.v1.coordination.k8s.io", "kube-system", "kube-controller-manager", "b leads", holder(c, "b"))
	target.Name = "web"
	require.NoError(t, kit.MergePatch(context.Background(), c.Client, target, "", map[string]any{"spec": map[string]any{"replicas": 4}}, nil))
	cluster.Await(t, c, "pods", "b made the fourth pod", func(ps []*api.Pod) bool { return len(ps) == 4 })
	assert.True(t, b.IsLeader())
}
