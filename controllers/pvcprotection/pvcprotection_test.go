package pvcprotection_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestClaimReleasedOnceUnused deletes two claims, one mounted by a
// scheduled pod: the unused one goes, the used one stays Terminating
// until its pod is deleted.
func TestClaimReleasedOnceUnused(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Controllers: []string{controllers.PVCProtection}})
	ctx := context.Background()
	claims := kit.Target{Resource: "persistentvolumeclaims", Namespace: "default"}
	pods := kit.Target{Resource: "pods", Namespace: "default"}
	claim := func(name string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"accessModes": []string{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]string{"storage": "1Gi"}}}}
	}
	require.NoError(t, kit.Create(ctx, c.Client, claims, claim("used"), nil))
	require.NoError(t, kit.Create(ctx, c.Client, claims, claim("unused"), nil))
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "user"},
		"spec": map[string]any{"nodeName": "n1", "containers": []map[string]any{{"name": "c", "image": "nginx"}},
			"volumes": []map[string]any{{"name": "data", "persistentVolumeClaim": map[string]string{"claimName": "used"}}}}}
	require.NoError(t, kit.Create(ctx, c.Client, pods, pod, nil))

	require.NoError(t, kit.Delete(ctx, c.Client, claims.Named("used"), "", nil))
	require.NoError(t, kit.Delete(ctx, c.Client, claims.Named("unused"), "", nil))
	names := func(cs []*api.PersistentVolumeClaim) []string {
		var out []string
		for _, cl := range cs {
			out = append(out, cl.Name)
		}
		return out
	}
	cs := cluster.Await(t, c, "persistentvolumeclaims", "the unused claim gone", func(cs []*api.PersistentVolumeClaim) bool {
		return len(cs) == 1
	})
	require.Equal(t, []string{"used"}, names(cs))
	assert.NotNil(t, cs[0].DeletionTimestamp, "the used claim is Terminating")
	assert.Contains(t, cs[0].Finalizers, "kubernetes.io/pvc-protection")

	zero := int64(0)
	require.NoError(t, kit.Delete(ctx, c.Client, pods.Named("user"), "", &zero))
	cluster.Await(t, c, "persistentvolumeclaims", "the used claim gone", func(cs []*api.PersistentVolumeClaim) bool { return len(cs) == 0 })
}

// TestLiveClaimGetsTheFinalizer removes the protection finalizer from a
// live claim, keeping another finalizer: the controller puts it back
// beside the other.
func TestLiveClaimGetsTheFinalizer(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Controllers: []string{controllers.PVCProtection}})
	ctx := context.Background()
	claims := kit.Target{Resource: "persistentvolumeclaims", Namespace: "default"}
	claim := map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": "data"},
		"spec": map[string]any{"accessModes": []string{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]string{"storage": "1Gi"}}}}
	require.NoError(t, kit.Create(ctx, c.Client, claims, claim, nil))
	var cur api.PersistentVolumeClaim
	patch := map[string]any{"metadata": map[string]any{"finalizers": []string{"example.com/keep"}}}
	require.NoError(t, kit.MergePatch(ctx, c.Client, claims.Named("data"), "", patch, &cur))
	require.Equal(t, []string{"example.com/keep"}, cur.Finalizers)

	cl := cluster.AwaitNamed(t, c, "persistentvolumeclaims", "default", "data", "the finalizer back", func(cl *api.PersistentVolumeClaim) bool {
		return len(cl.Finalizers) == 2
	})
	assert.Equal(t, []string{"example.com/keep", "kubernetes.io/pvc-protection"}, cl.Finalizers)

	patch = map[string]any{"metadata": map[string]any{"finalizers": nil}}
	require.NoError(t, kit.MergePatch(ctx, c.Client, claims.Named("data"), "", patch, nil))
	cluster.AwaitNamed(t, c, "persistentvolumeclaims", "default", "data", "the finalizer alone", func(cl *api.PersistentVolumeClaim) bool {
		return slices.Equal(cl.Finalizers, []string{"kubernetes.io/pvc-protection"})
	})
}
