package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamespaceTerminatingUntilContentGoes(t *testing.T) {
	_, c := newTestServer(t, Options{})
	ns := c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"team"}}`)
	c.mustCreate(crdPath, widgetCRD)
	const cms = "/api/v1/namespaces/team/configmaps"
	c.mustCreate(cms, `{"metadata":{"name":"plain"}}`)
	c.mustCreate(cms, `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	c.mustCreate("/apis/example.com/v1/namespaces/team/widgets", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	c.mustCreate("/api/v1/namespaces/team/pods", `{"metadata":{"name":"bound"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"nginx"}]}}`)
	watch := c.watch("/api/v1/namespaces?watch=1&resourceVersion=" + ns["metadata"].(map[string]any)["resourceVersion"].(string))

	r := c.do(http.MethodDelete, "/api/v1/namespaces/team", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "Terminating", r.object(t)["status"].(map[string]any)["phase"])

	// Everything without a finalizer is gone (custom resources and pods
	// bound to a node too); the held configmap keeps the namespace.
	assert.Equal(t, []string{"team/held"}, itemNames(t, decodeList(t, c.get(cms))))
	assert.Empty(t, decodeList(t, c.get("/apis/example.com/v1/namespaces/team/widgets")).Items)
	assert.Empty(t, decodeList(t, c.get("/api/v1/namespaces/team/pods")).Items)
	got := c.get("/api/v1/namespaces/team")
	require.Equal(t, http.StatusOK, got.code)
	status := got.object(t)["status"].(map[string]any)
	assert.Equal(t, "Terminating", status["phase"])
	conds := map[string]string{}
	for _, c := range status["conditions"].([]any) {
		c := c.(map[string]any)
		conds[c["type"].(string)] = c["status"].(string) + " " + c["message"].(string)
	}
	assert.Equal(t, "True Some resources are remaining: configmaps. has 1 resource instances", conds["NamespaceContentRemaining"])
	assert.Equal(t, "True Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances", conds["NamespaceFinalizersRemaining"])

	// Creates inside a terminating namespace are refused.
	r = c.post(cms, `{"metadata":{"name":"late"}}`)
	require.Equal(t, http.StatusForbidden, r.code, "%s", r.body)
	st := r.status(t)
	assert.Equal(t, `configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated`, st.Message)
	require.NotNil(t, st.Details)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, "NamespaceTerminating", string(st.Details.Causes[0].Type))
	r = c.post("/apis/apps/v1/namespaces/team/deployments", `{"metadata":{"generateName":"web-"}}`)
	require.Equal(t, http.StatusForbidden, r.code, "%s", r.body)
	assert.Equal(t, `deployments.apps is forbidden: unable to create new content in namespace team because it is being terminated`, r.status(t).Message)

	// A second delete changes nothing; an update keeps the namespace.
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, "/api/v1/namespaces/team", "").code)
	r = c.do(http.MethodPatch, "/api/v1/namespaces/team", `{"metadata":{"labels":{"x":"1"}}}`, "Content-Type", mediaMergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, http.StatusOK, c.get("/api/v1/namespaces/team").code)

	// Releasing the last object lets the namespace go.
	r = c.do(http.MethodPatch, cms+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type", mediaMergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/team").code)

	var types []string
	for {
		e := watch.next()
		types = append(types, e.Type)
		if e.Type == "DELETED" {
			break
		}
	}
	assert.Equal(t, "MODIFIED", types[0], "Terminating")
	assert.Equal(t, "DELETED", types[len(types)-1])
}

func TestNamespaceWithSpecFinalizerStays(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"kept"},"spec":{"finalizers":["kubernetes","example.com/other"]}}`)
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, "/api/v1/namespaces/kept", "").code)
	got := c.get("/api/v1/namespaces/kept")
	require.Equal(t, http.StatusOK, got.code, "another spec finalizer holds it")
	assert.Equal(t, []any{"example.com/other"}, got.object(t)["spec"].(map[string]any)["finalizers"], "the server removed its own")
}

func TestNamespaceFinalizeSubresource(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"stuck"},"spec":{"finalizers":["kubernetes","example.com/other"]}}`)
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, "/api/v1/namespaces/stuck", "").code)
	require.Equal(t, http.StatusOK, c.get("/api/v1/namespaces/stuck").code)

	r := c.do(http.MethodPut, "/api/v1/namespaces/stuck/finalize", `{"metadata":{"name":"other"},"spec":{"finalizers":[]}}`)
	assert.Equal(t, http.StatusBadRequest, r.code, "%s", r.body)
	r = c.do(http.MethodPut, "/api/v1/namespaces/stuck/finalize", `{"metadata":{"name":"stuck","resourceVersion":"1"},"spec":{"finalizers":[]}}`)
	assert.Equal(t, http.StatusConflict, r.code, "%s", r.body)
	r = c.do(http.MethodPut, "/api/v1/namespaces/stuck/finalize?dryRun=All", `{"metadata":{"name":"stuck"},"spec":{"finalizers":[]}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, http.StatusOK, c.get("/api/v1/namespaces/stuck").code, "dry run")

	r = c.do(http.MethodPut, "/api/v1/namespaces/stuck/finalize", `{"metadata":{"name":"stuck"},"spec":{"finalizers":[]}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/stuck").code, "the last spec finalizer of a terminating namespace deletes it")

	// On a live namespace it only sets the finalizers.
	r = c.do(http.MethodPut, "/api/v1/namespaces/default/finalize", `{"metadata":{"name":"default"},"spec":{"finalizers":["example.com/x"]}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, []any{"example.com/x"}, c.get("/api/v1/namespaces/default").object(t)["spec"].(map[string]any)["finalizers"])
	assert.Equal(t, http.StatusNotFound, c.do(http.MethodPut, "/api/v1/namespaces/missing/finalize", `{"metadata":{"name":"missing"}}`).code)
}
