package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmptyOverheadIsSet checks a Pod's overhead: {} as the real server
// reads it: set on create, where the RuntimeClass plugin refuses an
// overhead no class defines, and the same as an absent one on update.
func TestEmptyOverheadIsSet(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const pods = "/api/v1/namespaces/default/pods"
	r := c.post(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"o"},"spec":{"overhead":{},"containers":[{"name":"c","image":"i"}]}}`)
	require.Equal(t, http.StatusForbidden, r.code, "%s", r.body)
	assert.Equal(t, `pods "o" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`, r.status(t).Message)

	r = c.post(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"o"},"spec":{"containers":[{"name":"c","image":"i"}]}}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	r = c.do(http.MethodPut, pods+"/o", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"o"},"spec":{"overhead":{},"containers":[{"name":"c","image":"i"}]}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.NotContains(t, r.body, `"overhead"`)
}
