package fakeapiserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
)

// TestBindingSchedulesThePod: a Binding sets the pod's node, copies its
// annotations onto the pod, replaces the PodScheduled condition by a
// bare True one and clears the nominated node, as the real server's
// binding does (answers checked against kube-apiserver v1.37.2); a
// second binding is a 409.
func TestBindingSchedulesThePod(t *testing.T) {
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	_, c := newTestServer(t, Options{Clock: clock.NewFake(at)})
	const pods = "/api/v1/namespaces/default/pods"
	c.mustCreate(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"schedulerName":"nobody","containers":[{"name":"c","image":"x"}]}}`)
	r := c.do(http.MethodPatch, pods+"/p/status", `{"status":{"nominatedNodeName":"n0","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"m"}]}}`,
		"Content-Type", "application/strategic-merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	r = c.post(pods+"/p/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","annotations":{"a":"b"}},"target":{"kind":"Node","name":"n1"}}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	pod := c.get(pods + "/p").object(t)
	assert.Equal(t, "n1", pod["spec"].(map[string]any)["nodeName"])
	assert.Equal(t, map[string]any{"a": "b"}, pod["metadata"].(map[string]any)["annotations"])
	status := pod["status"].(map[string]any)
	assert.NotContains(t, status, "nominatedNodeName")
	assert.Equal(t, []any{map[string]any{"type": "PodScheduled", "status": "True", "lastProbeTime": nil, "lastTransitionTime": "2026-12-03T12:00:00Z"}}, status["conditions"])

	r = c.post(pods+"/p/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"n2"}}`)
	assert.Equal(t, http.StatusConflict, r.code, "%s", r.body)
	assert.Contains(t, r.status(t).Message, `pod p is already assigned to node "n1"`)
}
