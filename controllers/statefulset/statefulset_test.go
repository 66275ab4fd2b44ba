package statefulset_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var sets = kit.Target{Group: "apps", Version: "v1", Resource: "statefulsets", Namespace: "default"}

// setBody is a StatefulSet of replicas nginx pods labelled app=name, with
// spec merged over the defaults.
func setBody(name string, replicas int, annotations map[string]string, spec map[string]any) map[string]any {
	s := map[string]any{
		"replicas":    replicas,
		"serviceName": name,
		"selector":    map[string]any{"matchLabels": map[string]string{"app": name}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]string{"app": name}, "annotations": annotations},
			"spec":     map[string]any{"containers": []map[string]any{{"name": "db", "image": "nginx"}}},
		},
	}
	for k, v := range spec {
		s[k] = v
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": name, "namespace": "default"}, "spec": s}
}

func start(t *testing.T, clock fakeapiserver.Clock) *cluster.Cluster {
	c := cluster.Start(t, cluster.Options{
		Server:      fakeapiserver.Options{Clock: clock},
		Controllers: []string{controllers.StatefulSet, controllers.Scheduler}, Nodes: 2,
	})
	cluster.Await(t, c, "nodes", "two nodes", func(ns []*api.Node) bool { return len(ns) == 2 })
	return c
}

func patchSet(t *testing.T, c *cluster.Cluster, name string, patch map[string]any) {
	t.Helper()
	tg := sets
	tg.Name = name
	require.NoError(t, kit.MergePatch(context.Background(), c.Client, tg, "", patch, nil))
}

// members maps the live pods of set name by their names.
func members(ps []*api.Pod) map[string]*api.Pod {
	out := map[string]*api.Pod{}
	for _, p := range ps {
		if p.DeletionTimestamp == nil {
			out[p.Name] = p
		}
	}
	return out
}

func runningReady(p *api.Pod) bool {
	return p != nil && p.Status.Phase == api.PodRunning && api.IsPodReady(p)
}

// watchPods calls check on every state of the pods the test's informer
// sees until done holds.
func watchPods(t *testing.T, c *cluster.Cluster, check func(map[string]*api.Pod) error, done func(map[string]*api.Pod) bool, during func()) {
	t.Helper()
	ok := cluster.Watch(t, c, "pods", func(ctx context.Context, inf *informer.Informer[*api.Pod], changed func() <-chan struct{}) bool {
		if during != nil {
			during()
		}
		for {
			ch := changed()
			ps := members(inf.Indexer().List())
			if err := check(ps); err != nil {
				t.Errorf("%v", err)
				return true
			}
			if done(ps) {
				return true
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return false
			}
		}
	})
	require.True(t, ok, "the pods never reached the awaited state")
}

// TestOrderedReadyCreatesInOrderAndDeletesInReverse creates a set of 3
// whose pods turn ready 10 s after they start: web-1 is not created
// until web-0 is running and ready, nor web-2 before web-1; each pod has
// its stable name, hostname, subdomain, identity labels and its own
// PersistentVolumeClaim from the claim template. Scaled to 1, web-2 goes
// before web-1.
func TestOrderedReadyCreatesInOrderAndDeletesInReverse(t *testing.T) {
	clock := fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := start(t, clock)
	claim := map[string]any{"metadata": map[string]any{"name": "data"},
		"spec": map[string]any{"accessModes": []string{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]string{"storage": "1Gi"}}}}
	body := setBody("web", 3, map[string]string{"sim.kubecache.dev/ready-after": "10s"}, map[string]any{"volumeClaimTemplates": []any{claim}})
	require.NoError(t, kit.Create(context.Background(), c.Client, sets, body, nil))

	inOrder := func(ps map[string]*api.Pod) error {
		for i := 1; i < 3; i++ {
			if ps[fmt.Sprintf("web-%d", i)] != nil && !runningReady(ps[fmt.Sprintf("web-%d", i-1)]) {
				return fmt.Errorf("web-%d exists while web-%d is not running and ready", i, i-1)
			}
		}
		return nil
	}
	for n := 1; n <= 3; n++ {
		name := fmt.Sprintf("web-%d", n-1)
		watchPods(t, c, inOrder, func(ps map[string]*api.Pod) bool {
			return len(ps) == n && ps[name] != nil && ps[name].Status.Phase == api.PodRunning
		}, nil)
		clock.Step(10 * time.Second)
	}
	set := cluster.AwaitNamed(t, c, "statefulsets.v1.apps", "default", "web", "3 ready", func(s *api.StatefulSet) bool {
		return s.Status.ReadyReplicas == 3 && s.Status.AvailableReplicas == 3
	})
	st := set.Status
	assert.Equal(t, int32(3), st.Replicas)
	assert.Equal(t, int32(3), st.CurrentReplicas)
	assert.Equal(t, int32(3), st.UpdatedReplicas)
	assert.Equal(t, set.Generation, st.ObservedGeneration)
	assert.Regexp(t, `^web-[a-z0-9]+$`, st.UpdateRevision)
	assert.Equal(t, st.UpdateRevision, st.CurrentRevision)

	ps := cluster.Await(t, c, "pods", "three pods", func(ps []*api.Pod) bool { return len(ps) == 3 })
	for _, p := range ps {
		_, ord, _ := cutOrdinal(p.Name)
		assert.Equal(t, p.Name, p.Spec.Hostname)
		assert.Equal(t, "web", p.Spec.Subdomain)
		assert.Equal(t, p.Name, p.Labels[api.StatefulSetPodNameLabel])
		assert.Equal(t, fmt.Sprint(ord), p.Labels[api.PodIndexLabel])
		assert.Equal(t, st.UpdateRevision, p.Labels[api.ControllerRevisionHashLabel])
	}
	claims := cluster.Await(t, c, "persistentvolumeclaims", "three claims", func(cs []*api.PersistentVolumeClaim) bool { return len(cs) == 3 })
	var names []string
	for _, pvc := range claims {
		names = append(names, pvc.Name)
		assert.Equal(t, "web", pvc.Labels["app"])
	}
	slices.Sort(names)
	assert.Equal(t, []string{"data-web-0", "data-web-1", "data-web-2"}, names)
	revs := cluster.Await(t, c, "controllerrevisions.v1.apps", "one revision", func(rs []*api.ControllerRevision) bool { return len(rs) == 1 })
	assert.Equal(t, st.UpdateRevision, revs[0].Name)
	assert.Equal(t, int64(1), revs[0].Revision)

	reverse := func(ps map[string]*api.Pod) error {
		if ps["web-1"] == nil && ps["web-2"] != nil {
			return fmt.Errorf("web-1 went before web-2")
		}
		return nil
	}
	watchPods(t, c, reverse, func(ps map[string]*api.Pod) bool { return len(ps) == 1 && ps["web-0"] != nil },
		func() { patchSet(t, c, "web", map[string]any{"spec": map[string]any{"replicas": 1}}) })
}

// cutOrdinal splits "web-2" into "web" and 2.
func cutOrdinal(name string) (string, int, bool) {
	var ord int
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '-' {
			_, err := fmt.Sscan(name[i+1:], &ord)
			return name[:i], ord, err == nil
		}
	}
	return "", 0, false
}

// revisionOf returns the revision label of every live pod, by name.
func revisionOf(ps []*api.Pod) map[string]string {
	out := map[string]string{}
	for n, p := range members(ps) {
		out[n] = p.Labels[api.ControllerRevisionHashLabel]
	}
	return out
}

// TestRollingUpdateWithPartition changes the image of a Parallel set of
// 3 with partition 1: web-2 and web-1 are replaced by pods of the new
// revision, web-0 keeps the old one and the current revision stays the
// old one; with the partition lowered to 0, web-0 is replaced too and
// the update revision becomes the current one. A second revision exists.
func TestRollingUpdateWithPartition(t *testing.T) {
	c := start(t, nil)
	body := setBody("db", 3, nil, map[string]any{"podManagementPolicy": "Parallel",
		"updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": 1}}})
	require.NoError(t, kit.Create(context.Background(), c.Client, sets, body, nil))
	old := cluster.AwaitNamed(t, c, "statefulsets.v1.apps", "default", "db", "3 ready", func(s *api.StatefulSet) bool {
		return s.Status.ReadyReplicas == 3 && s.Status.CurrentRevision != ""
	}).Status.CurrentRevision

	patchSet(t, c, "db", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"containers": []map[string]any{{"name": "db", "image": "nginx:1.27"}}}}}})
	set := cluster.AwaitNamed(t, c, "statefulsets.v1.apps", "default", "db", "2 updated and ready", func(s *api.StatefulSet) bool {
		return s.Status.UpdateRevision != old && s.Status.UpdatedReplicas == 2 && s.Status.ReadyReplicas == 3
	})
	assert.Equal(t, old, set.Status.CurrentRevision)
	assert.Equal(t, int32(1), set.Status.CurrentReplicas)
	updated := set.Status.UpdateRevision
	ps := cluster.Await(t, c, "pods", "the partition honoured", func(ps []*api.Pod) bool {
		r := revisionOf(ps)
		return len(r) == 3 && r["db-1"] == updated && r["db-2"] == updated
	})
	assert.Equal(t, old, revisionOf(ps)["db-0"])
	for _, p := range ps {
		if p.Name != "db-0" {
			assert.Equal(t, "nginx:1.27", p.Spec.Containers[0].Image)
		}
	}

	patchSet(t, c, "db", map[string]any{"spec": map[string]any{"updateStrategy": map[string]any{"rollingUpdate": map[string]any{"partition": 0}}}})
	set = cluster.AwaitNamed(t, c, "statefulsets.v1.apps", "default", "db", "rolled out", func(s *api.StatefulSet) bool {
		return s.Status.CurrentRevision == updated && s.Status.UpdatedReplicas == 3 && s.Status.ReadyReplicas == 3
	})
	assert.Equal(t, int32(3), set.Status.CurrentReplicas)
	cluster.Await(t, c, "pods", "every pod updated", func(ps []*api.Pod) bool {
		r := revisionOf(ps)
		return len(r) == 3 && r["db-0"] == updated && r["db-1"] == updated && r["db-2"] == updated
	})
	revs := cluster.Await(t, c, "controllerrevisions.v1.apps", "two revisions", func(rs []*api.ControllerRevision) bool { return len(rs) == 2 })
	for _, r := range revs {
		if r.Name == updated {
			assert.Equal(t, int64(2), r.Revision)
		}
	}
}

// TestOnDeleteReplacesOnlyDeletedPods changes the template of an
// OnDelete set: no pod is replaced until one is deleted, and the one
// that comes back has the new revision.
func TestOnDeleteReplacesOnlyDeletedPods(t *testing.T) {
	c := start(t, nil)
	body := setBody("q", 2, nil, map[string]any{"updateStrategy": map[string]any{"type": "OnDelete"}})
	require.NoError(t, kit.Create(context.Background(), c.Client, sets, body, nil))
	cluster.AwaitNamed(t, c, "statefulsets.v1.apps", "default", "q", "2 ready", func(s *api.StatefulSet) bool { return s.Status.ReadyReplicas == 2 })
	before := cluster.Await(t, c, "pods", "two pods", func(ps []*api.Pod) bool { return len(ps) == 2 })

	patchSet(t, c, "q", map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{"annotations": map[string]string{"v": "2"}}}}})
	set := cluster.AwaitNamed(t, c, "statefulsets.v1.apps", "default", "q", "a new update revision", func(s *api.StatefulSet) bool {
		return s.Status.UpdateRevision != s.Status.CurrentRevision && s.Status.ObservedGeneration == s.Generation
	})
	assert.Equal(t, int32(0), set.Status.UpdatedReplicas)
	now := cluster.Await(t, c, "pods", "two pods", func(ps []*api.Pod) bool { return len(ps) == 2 })
	assert.ElementsMatch(t, uids(before), uids(now), "OnDelete replaced a pod nobody deleted")

	require.NoError(t, kit.Delete(context.Background(), c.Client, kit.Target{Resource: "pods", Namespace: "default", Name: "q-1"}, "", nil))
	cluster.Await(t, c, "pods", "q-1 recreated at the new revision", func(ps []*api.Pod) bool {
		r := revisionOf(ps)
		return len(r) == 2 && r["q-1"] == set.Status.UpdateRevision && r["q-0"] == set.Status.CurrentRevision
	})
	cluster.AwaitNamed(t, c, "statefulsets.v1.apps", "default", "q", "one updated", func(s *api.StatefulSet) bool {
		return s.Status.UpdatedReplicas == 1 && s.Status.CurrentReplicas == 1
	})
}

func uids(ps []*api.Pod) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.UID)
	}
	return out
}

// TestClaimRetentionPolicyDelete runs a set whose claims are to be
// deleted both with the set and on scale-down: each claim is owned by
// the set; scaled from 3 to 1, the claims of the removed members go
// with them (owned by their pods first), and deleting the set takes the
// last claim with it.
func TestClaimRetentionPolicyDelete(t *testing.T) {
	c := start(t, nil)
	ctx := context.Background()
	claim := map[string]any{"metadata": map[string]any{"name": "data"},
		"spec": map[string]any{"accessModes": []string{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]string{"storage": "1Gi"}}}}
	body := setBody("db", 3, nil, map[string]any{"podManagementPolicy": "Parallel", "volumeClaimTemplates": []any{claim},
		"persistentVolumeClaimRetentionPolicy": map[string]string{"whenDeleted": "Delete", "whenScaled": "Delete"}})
	var set api.StatefulSet
	require.NoError(t, kit.Create(ctx, c.Client, sets, body, &set))

	live := func(cs []*api.PersistentVolumeClaim) map[string]*api.PersistentVolumeClaim {
		out := map[string]*api.PersistentVolumeClaim{}
		for _, cl := range cs {
			if cl.DeletionTimestamp == nil {
				out[cl.Name] = cl
			}
		}
		return out
	}
	ownedBySet := func(cl *api.PersistentVolumeClaim) bool {
		ref := api.ControllerOf(&cl.ObjectMeta)
		return cl != nil && len(cl.OwnerReferences) == 1 && ref != nil && ref.Kind == "StatefulSet" && ref.UID == set.UID
	}
	cluster.Await(t, c, "persistentvolumeclaims", "three claims owned by the set", func(cs []*api.PersistentVolumeClaim) bool {
		l := live(cs)
		return len(l) == 3 && ownedBySet(l["data-db-0"]) && ownedBySet(l["data-db-1"]) && ownedBySet(l["data-db-2"])
	})

	patchSet(t, c, "db", map[string]any{"spec": map[string]any{"replicas": 1}})
	cs := cluster.Await(t, c, "persistentvolumeclaims", "the claims of db-1 and db-2 deleted", func(cs []*api.PersistentVolumeClaim) bool {
		l := live(cs)
		return len(l) == 1 && ownedBySet(l["data-db-0"])
	})
	for _, cl := range cs {
		if cl.Name != "data-db-0" {
			ref := api.ControllerOf(&cl.ObjectMeta)
			require.NotNil(t, ref, "claim %s", cl.Name)
			assert.Equal(t, "Pod", ref.Kind, "claim %s is owned by its pod when it goes", cl.Name)
		}
	}

	require.NoError(t, kit.DeleteWith(ctx, c.Client, sets.Named("db"), set.UID, "Background"))
	cluster.Await(t, c, "persistentvolumeclaims", "every claim deleted", func(cs []*api.PersistentVolumeClaim) bool { return len(live(cs)) == 0 })
}
