package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The answers below are the real kube-apiserver v1.37.2's (no kubelet).
func TestPodConnect(t *testing.T) {
	unscheduled := parse(t, `{"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	assert.True(t, PodConnect("log", "default", "lp", &unscheduled, "", nil).NoContent)
	a := PodConnect("log", "default", "lp", &unscheduled, "x", nil)
	require.NotNil(t, a.Status)
	assert.Equal(t, int32(400), a.Status.Code)
	assert.Equal(t, "container x is not valid for pod lp", a.Status.Message)
	for _, sub := range []string{"exec", "attach", "portforward"} {
		a = PodConnect(sub, "default", "lp", &unscheduled, "c", nil)
		require.NotNil(t, a.Status, sub)
		assert.Equal(t, "pod lp does not have a host assigned", a.Status.Message, sub)
		assert.Equal(t, "BadRequest", string(a.Status.Reason), sub)
	}

	bound := parse(t, `{"spec":{"nodeName":"n1","containers":[{"name":"c","image":"nginx"}]}}`)
	a = PodConnect("log", "default", "lp", &bound, "", nil)
	require.NotNil(t, a.Status)
	assert.Equal(t, int32(404), a.Status.Code)
	assert.Equal(t, `pods "n1" not found`, a.Status.Message)
	assert.Equal(t, "pods", a.Status.Details.Kind)

	node := parse(t, `{"status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":1}}}}`)
	a = PodConnect("log", "default", "lp", &bound, "", &node)
	require.NotNil(t, a.Status)
	assert.Equal(t, int32(500), a.Status.Code)
	assert.Equal(t, `Get "https://127.0.0.1:1/containerLogs/default/lp/c": dial tcp 127.0.0.1:1: connect: connection refused`, a.Status.Message)
	assert.Equal(t, "address not allowed", NodeProxy(&node, "pods").Message)

	two := parse(t, `{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`)
	a = PodConnect("exec", "default", "p", &two, "", nil)
	assert.Equal(t, "a container name must be specified for pod p, choose one of: [a b]", a.Status.Message)
}
