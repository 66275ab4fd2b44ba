package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An empty list in a built-in object's body is set for validation, as Go's
// decoding keeps it (a real server refuses `supplementalGroups: []` on a
// windows pod), and is left out of what is stored and of an update's
// managedFields, as the Go encoding and the real field manager leave it
// out; an apply owns it. The expected answers are the real server's.

const windowsPodEmptyGroups = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w"},
 "spec":{"os":{"name":"windows"},"securityContext":{"supplementalGroups":[]},"containers":[{"name":"c","image":"x"}]}}`

// TestEmptyListIsValidatedAsSet writes bodies whose empty lists a real
// server's validators see as set.
func TestEmptyListIsValidatedAsSet(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const pods = "/api/v1/namespaces/default/pods"
	for _, r := range []response{
		c.post(pods, windowsPodEmptyGroups),
		c.do(http.MethodPatch, pods+"/w?fieldManager=m", windowsPodEmptyGroups, "Content-Type", applyType),
	} {
		require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
		assert.Equal(t, `Pod "w" is invalid: spec.securityContext.supplementalGroups: Forbidden: cannot be set for a windows pod`, r.status(t).Message)
	}

	r := c.post("/apis/resource.k8s.io/v1/resourceslices", `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},
	 "spec":{"driver":"dra.example.com","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n1","sharedCounters":[],
	  "devices":[{"name":"a","bindingConditions":["x"],"bindingFailureConditions":[]}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, "ResourceSlice.resource.k8s.io \"s\" is invalid: [spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed, "+
		"spec.devices[0].bindingFailureConditions: Invalid value: []: bindingFailureConditions are required to use bindingConditions]", r.status(t).Message)

	r = c.post(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"spec":{"containers":[{"name":"c","image":"x",
	 "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"add":["CAP_SYS_ADMIN"],"drop":[]}}}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Contains(t, r.status(t).Message, `Invalid value: {"Capabilities":{"Add":["CAP_SYS_ADMIN"],"Drop":[]},"Privileged":null,`)

	r = c.post("/apis/batch/v1/namespaces/default/jobs", `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{
	 "podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":{"operator":"In","values":[]}}]},"successPolicy":{"rules":[]},
	 "template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `Job.batch "j" is invalid: [spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []: at least one value is required, `+
		`spec.successPolicy: Invalid value: {"Rules":[]}: requires indexed completion mode]`, r.status(t).Message)
}

// TestEmptyListStoredAndOwnedAsReal creates, applies and updates pods with
// empty lists: the stored objects leave them out, an update's
// managedFields do not name them and an apply's do, and an update that
// sends [] for a list the stored pod does not hold changes nothing the
// pod update rules forbid.
func TestEmptyListStoredAndOwnedAsReal(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const pods = "/api/v1/namespaces/default/pods"
	const spec = `"spec":{"securityContext":{"supplementalGroups":[]},"containers":[{"name":"c","image":"x","securityContext":{"capabilities":{"add":[]}}}]}`
	created := c.mustCreate(pods+"?fieldManager=u", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"u"},`+spec+`}`)
	r := c.do(http.MethodPatch, pods+"/a?fieldManager=m", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},`+spec+`}`, "Content-Type", applyType)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	applied := r.object(t)

	for name, obj := range map[string]map[string]any{"created": created, "applied": applied} {
		podSpec := obj["spec"].(map[string]any)
		assert.Equal(t, map[string]any{}, podSpec["securityContext"], "%s: spec.securityContext", name)
		container := podSpec["containers"].([]any)[0].(map[string]any)
		assert.Equal(t, map[string]any{"capabilities": map[string]any{}}, container["securityContext"], "%s: container securityContext", name)
	}
	assert.JSONEq(t, `{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},
	 "f:securityContext":{".":{},"f:capabilities":{}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},
	 "f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`,
		fieldsV1(t, created), "an update does not own the empty lists")
	assert.JSONEq(t, `{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},"f:securityContext":{"f:capabilities":{"f:add":{}}}}},
	 "f:securityContext":{"f:supplementalGroups":{}}}}`, fieldsV1(t, applied), "an apply owns them")

	podSpec := created["spec"].(map[string]any)
	podSpec["securityContext"] = map[string]any{"supplementalGroups": []any{}}
	podSpec["imagePullSecrets"] = []any{}
	container := podSpec["containers"].([]any)[0].(map[string]any)
	container["image"] = "y"
	container["args"] = []any{}
	body, err := json.Marshal(created)
	require.NoError(t, err)
	r = c.do(http.MethodPut, pods+"/u", string(body))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	updated := r.object(t)["spec"].(map[string]any)
	assert.Equal(t, map[string]any{}, updated["securityContext"])
	assert.NotContains(t, updated, "imagePullSecrets")
	assert.NotContains(t, updated["containers"].([]any)[0], "args")
}

// fieldsV1 returns the fields of an object's only managedFields entry.
func fieldsV1(t *testing.T, obj map[string]any) string {
	t.Helper()
	entries, _ := obj["metadata"].(map[string]any)["managedFields"].([]any)
	require.Len(t, entries, 1)
	b, err := json.Marshal(entries[0].(map[string]any)["fieldsV1"])
	require.NoError(t, err)
	return string(b)
}
