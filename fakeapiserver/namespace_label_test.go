package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A namespace carries kubernetes.io/metadata.name on create and after an
// update that drops it; the creator's managedFields entry owns the label
// and not the server-set spec.finalizers, as on a real server.
func TestNamespaceNameLabel(t *testing.T) {
	_, c := newTestServer(t, Options{})
	ns := c.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}`)
	md := ns["metadata"].(map[string]any)
	assert.Equal(t, map[string]any{"kubernetes.io/metadata.name": "team-a"}, md["labels"])
	assert.Equal(t, []any{"kubernetes"}, ns["spec"].(map[string]any)["finalizers"])
	managed := md["managedFields"].([]any)
	require.Len(t, managed, 1)
	fields := managed[0].(map[string]any)["fieldsV1"].(map[string]any)
	assert.Equal(t, map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{".": map[string]any{}, "f:kubernetes.io/metadata.name": map[string]any{}}}}, fields)

	r := c.do(http.MethodPut, "/api/v1/namespaces/team-a", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a","labels":{"tier":"web"}}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, map[string]any{"kubernetes.io/metadata.name": "team-a", "tier": "web"}, r.object(t)["metadata"].(map[string]any)["labels"])

	r = c.get("/api/v1/namespaces?labelSelector=kubernetes.io/metadata.name%3Dteam-a")
	require.Equal(t, http.StatusOK, r.code)
	assert.Len(t, r.object(t)["items"], 1, "the label selects the namespace by name")
}
