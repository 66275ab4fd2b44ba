package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServiceDryRunReservesNothing checks that dry-run writes of a
// Service answer with its would-be addresses and keep none of them, as
// the real server does: a dry-run update, patch or apply to NodePort
// shows a placeholder port (one past the range) or the requested one
// and leaves the requested one free; a dry-run create leaves its
// requested cluster IP and node port free.
func TestServiceDryRunReservesNothing(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const svcs = "/api/v1/namespaces/default/services"
	created := c.mustCreate(svcs, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"spec":{"ports":[{"port":80}]}}`)
	spec := created["spec"].(map[string]any)
	spec["type"] = "NodePort"
	body, err := json.Marshal(created)
	require.NoError(t, err)

	r := c.do(http.MethodPut, svcs+"/a?dryRun=All", string(body))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, 32769.0, nodePortOf(t, r.object(t)), "a picked port is shown as a placeholder past the range")

	spec["ports"].([]any)[0].(map[string]any)["nodePort"] = 30555
	body, err = json.Marshal(created)
	require.NoError(t, err)
	r = c.do(http.MethodPut, svcs+"/a?dryRun=All", string(body))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, 30555.0, nodePortOf(t, r.object(t)))

	r = c.do(http.MethodPatch, svcs+"/a?dryRun=All", `{"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30556}]}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, 30556.0, nodePortOf(t, r.object(t)))

	r = c.do(http.MethodPatch, svcs+"/a?dryRun=All&fieldManager=m&force=true", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30557}]}}`, "Content-Type", "application/apply-patch+yaml")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	r = c.post(svcs+"?dryRun=All", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"d"},"spec":{"type":"NodePort","clusterIP":"10.96.7.7","ports":[{"port":80,"nodePort":30558}]}}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)

	// A dry run still refuses a port another Service holds, though not a
	// held cluster IP.
	c.mustCreate(svcs, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"h"},"spec":{"type":"NodePort","clusterIP":"10.96.8.8","ports":[{"port":80,"nodePort":30600}]}}`)
	r = c.post(svcs+"?dryRun=All", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"y"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30600}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `Service "y" is invalid: spec.ports[0].nodePort: Invalid value: 30600: provided port is already allocated`, r.status(t).Message)
	r = c.post(svcs+"?dryRun=All", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"y"},"spec":{"clusterIP":"10.96.8.8","ports":[{"port":80}]}}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)

	stored := c.get(svcs + "/a").object(t)
	assert.Equal(t, "ClusterIP", stored["spec"].(map[string]any)["type"], "a dry run changes nothing")

	// Every port and address the dry runs named is still free.
	for i, p := range []int{30555, 30556, 30557} {
		name := string(rune('p' + i))
		obj := c.mustCreate(svcs, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"`+name+`"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":`+strconv.Itoa(p)+`}]}}`)
		assert.Equal(t, float64(p), nodePortOf(t, obj))
	}
	obj := c.mustCreate(svcs, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"d"},"spec":{"type":"NodePort","clusterIP":"10.96.7.7","ports":[{"port":80,"nodePort":30558}]}}`)
	assert.Equal(t, "10.96.7.7", obj["spec"].(map[string]any)["clusterIP"])
}

// nodePortOf returns the first port's nodePort of a Service.
func nodePortOf(t *testing.T, svc map[string]any) float64 {
	t.Helper()
	spec, _ := svc["spec"].(map[string]any)
	ports, _ := spec["ports"].([]any)
	require.NotEmpty(t, ports, "%v", svc)
	np, _ := ports[0].(map[string]any)["nodePort"].(float64)
	return np
}
