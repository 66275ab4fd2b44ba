package fakeapiserver

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// TestStatusWriteValidated shows a write to a built-in object's /status
// checked by its status strategy's rules: a bad one (PUT, PATCH, dry run
// or not) is a 422 that stores nothing, a good one stores the status.
func TestStatusWriteValidated(t *testing.T) {
	_, c := newTestServer(t, Options{})
	ns := c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"s1"}}`)
	rv := rvOf(t, ns)
	body := func(phase string) string {
		return fmt.Sprintf(`{"metadata":{"name":"s1","resourceVersion":%q},"status":{"phase":%q}}`, rv, phase)
	}
	for _, q := range []string{"", "?dryRun=All"} {
		r := c.do(http.MethodPut, "/api/v1/namespaces/s1/status"+q, body("Terminating"))
		require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
		st := r.status(t)
		assert.Equal(t, meta.ReasonInvalid, st.Reason)
		assert.Equal(t, "Namespace \"s1\" is invalid: status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty", st.Message)
	}
	r := c.get("/api/v1/namespaces/s1")
	assert.Equal(t, rv, rvOf(t, r.object(t)), "a refused status write stores nothing")

	r = c.do(http.MethodPut, "/api/v1/namespaces/s1/status", fmt.Sprintf(`{"metadata":{"name":"s1","resourceVersion":%q},"status":{}}`, rv))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, map[string]any{"phase": "Active"}, r.object(t)["status"], "an empty phase is defaulted")

	path := "/apis/apps/v1/namespaces/default/deployments"
	c.mustCreate(path, `{"metadata":{"name":"d"},"spec":`+validDeploySpec+`}`)
	r = c.do(http.MethodPatch, path+"/d/status", `{"status":{"replicas":1,"readyReplicas":2,"collisionCount":2}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `Deployment.apps "d" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas`, r.status(t).Message)
	r = c.do(http.MethodPatch, path+"/d/status", `{"status":{"replicas":2,"readyReplicas":2,"collisionCount":2}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	r = c.do(http.MethodPatch, path+"/d/status", `{"status":{"collisionCount":1}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `Deployment.apps "d" is invalid: status.collisionCount: Invalid value: 1: cannot be decremented`, r.status(t).Message)
	status := c.get(path + "/d").object(t)["status"].(map[string]any)
	assert.EqualValues(t, 2, status["collisionCount"])
}

// TestStatusWriteDefaulted shows a status write decoded with the real
// defaults: a Node's allocatable from its capacity, a load balancer
// ingress's ipMode.
func TestStatusWriteDefaulted(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/api/v1/nodes", `{"metadata":{"name":"n1"}}`)
	r := c.do(http.MethodPatch, "/api/v1/nodes/n1/status", `{"status":{"capacity":{"cpu":"2","pods":"110"}}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	status := c.get("/api/v1/nodes/n1").object(t)["status"].(map[string]any)
	assert.Equal(t, map[string]any{"cpu": "2", "pods": "110"}, status["allocatable"])

	r = c.do(http.MethodPatch, "/api/v1/nodes/n1/status", `{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"InternalIP","address":"10.0.0.1"}]}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `Node "n1" is invalid: status.addresses[1]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}`, r.status(t).Message)

	svc := "/api/v1/namespaces/default/services"
	c.mustCreate(svc, `{"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}`)
	r = c.do(http.MethodPatch, svc+"/lb/status", `{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]}}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	lb := c.get(svc + "/lb").object(t)["status"].(map[string]any)["loadBalancer"]
	assert.Equal(t, map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1", "ipMode": "VIP"}}}, lb)
	r = c.do(http.MethodPatch, svc+"/lb/status", `{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2"}]}}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `Service "lb" is invalid: status.loadBalancer.ingress[0].ip: Invalid value: "192.0.2": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`, r.status(t).Message)
}
