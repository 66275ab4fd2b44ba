package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoGarbageCollectorLeavesDependents switches the garbage collector
// off, as on a real API server without kube-controller-manager: the
// dependents of a deleted owner stay, and a Foreground delete leaves the
// owner waiting with its finalizer.
func TestNoGarbageCollectorLeavesDependents(t *testing.T) {
	_, c := newTestServer(t, Options{NoGarbageCollector: true})
	createFamily(t, c, true, "")
	r := c.do(http.MethodDelete, rsPath+"/web-1", `{"propagationPolicy":"Background"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, http.StatusNotFound, c.get(rsPath+"/web-1").code)
	assert.Len(t, decodeList(t, c.get(podPath)).Items, 2, "the pods stay without a garbage collector")

	r = c.do(http.MethodDelete, deployPath+"/web", `{"propagationPolicy":"Foreground"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	got := c.get(deployPath + "/web")
	require.Equal(t, http.StatusOK, got.code, "the owner waits for a collector that never comes")
	md := got.object(t)["metadata"].(map[string]any)
	assert.Contains(t, md["finalizers"], "foregroundDeletion")
	assert.NotNil(t, md["deletionTimestamp"])
}

// TestNoNamespaceControllerLeavesNamespaceTerminating switches the
// namespace controller off: a deleted namespace stays Terminating with
// its contents.
func TestNoNamespaceControllerLeavesNamespaceTerminating(t *testing.T) {
	_, c := newTestServer(t, Options{NoNamespaceController: true})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"shop"}}`)
	c.mustCreate("/api/v1/namespaces/shop/configmaps", `{"metadata":{"name":"cfg"}}`)
	r := c.do(http.MethodDelete, "/api/v1/namespaces/shop", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	ns := c.get("/api/v1/namespaces/shop")
	require.Equal(t, http.StatusOK, ns.code)
	assert.Equal(t, "Terminating", ns.object(t)["status"].(map[string]any)["phase"])
	assert.Equal(t, http.StatusOK, c.get("/api/v1/namespaces/shop/configmaps/cfg").code, "the contents stay")
}
