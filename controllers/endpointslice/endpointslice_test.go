package endpointslice_test

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
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func pod(name string, annotations map[string]string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]string{"app": "web"}, "annotations": annotations},
		"spec": map[string]any{"nodeName": "node-1", "containers": []map[string]any{{"name": "web", "image": "nginx",
			"ports": []map[string]any{{"name": "http", "containerPort": 8080}}}}}}
}

// TestEndpointSliceFollowsPodReadiness lists a Service's pods in its
// EndpointSlice with their readiness, resolves a named target port, and
// drops a deleted pod.
func TestEndpointSliceFollowsPodReadiness(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Controllers: []string{controllers.EndpointSlice}, Nodes: 1})
	ctx := context.Background()
	svc := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{"selector": map[string]string{"app": "web"}, "ports": []map[string]any{{"name": "http", "port": 80, "targetPort": "http"}}}}
	require.NoError(t, kit.Create(ctx, c.Client, kit.Target{Resource: "services", Namespace: "default"}, svc, nil))
	pods := kit.Target{Resource: "pods", Namespace: "default"}
	require.NoError(t, kit.Create(ctx, c.Client, pods, pod("a", nil), nil))
	require.NoError(t, kit.Create(ctx, c.Client, pods, pod("b", map[string]string{"sim.kubecache.dev/never-ready": "true"}), nil))

	ready := func(s *api.EndpointSlice, name string) (bool, bool) {
		for _, e := range s.Endpoints {
			if e.TargetRef != nil && e.TargetRef.Name == name {
				return *e.Conditions.Ready, true
			}
		}
		return false, false
	}
	sls := cluster.Await(t, c, "endpointslices.v1.discovery.k8s.io", "a ready, b not", func(ss []*api.EndpointSlice) bool {
		if len(ss) != 1 {
			return false
		}
		ra, oka := ready(ss[0], "a")
		rb, okb := ready(ss[0], "b")
		return oka && okb && ra && !rb
	})
	s := sls[0]
	assert.Equal(t, "web", s.Labels["kubernetes.io/service-name"])
	assert.Equal(t, "endpointslice-controller.k8s.io", s.Labels["endpointslice.kubernetes.io/managed-by"])
	assert.Regexp(t, `^web-[a-z0-9]{5}$`, s.Name)
	assert.Equal(t, "IPv4", s.AddressType)
	require.Len(t, s.Ports, 1)
	assert.Equal(t, int32(8080), *s.Ports[0].Port, "the named target port resolved against the pods")

	p := pods
	p.Name = "a"
	require.NoError(t, kit.Delete(ctx, c.Client, p, "", nil))
	cluster.Await(t, c, "endpointslices.v1.discovery.k8s.io", "a gone", func(ss []*api.EndpointSlice) bool {
		_, oka := ready(ss[0], "a")
		_, okb := ready(ss[0], "b")
		return !oka && okb
	})
}
