package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// managedFieldsOf returns the FieldsV1 of every entry of an object, by
// manager.
func managedFieldsOf(t *testing.T, obj map[string]any) map[string]string {
	t.Helper()
	entries, _ := obj["metadata"].(map[string]any)["managedFields"].([]any)
	out := map[string]string{}
	for _, e := range entries {
		m := e.(map[string]any)
		b, err := json.Marshal(m["fieldsV1"])
		require.NoError(t, err)
		out[m["manager"].(string)] = string(b)
	}
	return out
}

func TestManagedFieldsOfOrdinaryWrites(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const deploys = "/apis/apps/v1/namespaces/default/deployments"
	d := c.mustCreate(deploys+"?fieldManager=creator", `{"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	fields := managedFieldsOf(t, d)
	require.Contains(t, fields, "creator")
	assert.Contains(t, fields["creator"], `"k:{\"name\":\"c\"}"`, "containers are owned per item of the associative list")

	// A merge patch of a finalizer: set members are v: keys, and the
	// field moves to the patch's manager only.
	c.mustCreate(cmPath+"?fieldManager=creator", `{"metadata":{"name":"x"},"data":{"a":"1"}}`)
	r := c.do(http.MethodPatch, cmPath+"/x?fieldManager=patcher", `{"metadata":{"finalizers":["example.com/hold"]}}`,
		"Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	fields = managedFieldsOf(t, r.object(t))
	assert.Contains(t, fields["patcher"], `"v:\"example.com/hold\""`)
	assert.Contains(t, fields["creator"], `"f:a"`)
	assert.NotContains(t, fields["creator"], `finalizers`)
}

// TestManagedFieldsLeaveOutOmittedZeros checks that the zero value of a
// non-pointer scalar with omitempty (a Service's clusterIP, a port's
// name) is neither stored nor recorded by a create, an update or a
// patch, as the real server's Go types drop it, while an applied
// configuration still owns what it names.
func TestManagedFieldsLeaveOutOmittedZeros(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const svcs = "/api/v1/namespaces/default/services"
	created := c.mustCreate(svcs+"?fieldManager=creator", `{"metadata":{"name":"web"},"spec":{"clusterIP":"","sessionAffinity":"","ports":[{"name":"","port":80,"nodePort":0}]}}`)
	spec := created["spec"].(map[string]any)
	assert.Regexp(t, `^10\.96\.`, spec["clusterIP"], "an empty clusterIP is allocated")
	assert.Equal(t, "None", spec["sessionAffinity"], "an empty sessionAffinity is defaulted")
	assert.Equal(t, []any{map[string]any{"port": 80.0, "protocol": "TCP", "targetPort": 80.0}}, spec["ports"])
	fields := managedFieldsOf(t, created)
	assert.NotContains(t, fields["creator"], `"f:clusterIP"`)
	assert.NotContains(t, fields["creator"], `"f:name"`)

	r := c.do(http.MethodPut, svcs+"/web?fieldManager=updater", `{"metadata":{"name":"web"},"spec":{"clusterIP":"","type":"ClusterIP","ports":[{"name":"","port":80,"targetPort":8080}]}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	updated := r.object(t)
	assert.Equal(t, spec["clusterIP"], updated["spec"].(map[string]any)["clusterIP"], "an update without the address keeps it")
	fields = managedFieldsOf(t, updated)
	assert.Contains(t, fields["updater"], `"f:targetPort"`)
	assert.NotContains(t, fields["updater"], `"f:clusterIP"`)
	assert.NotContains(t, fields["updater"], `"f:name"`)

	r = c.do(http.MethodPatch, svcs+"/web?fieldManager=patcher", `{"spec":{"externalName":"","ports":[{"name":"","port":80}]}}`,
		"Content-Type", "application/strategic-merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.NotContains(t, managedFieldsOf(t, r.object(t)), "patcher", "a patch of zero values changes nothing")

	r = c.do(http.MethodPatch, svcs+"/web?fieldManager=applier&force=true", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"clusterIP":"","ports":[{"name":"","port":80,"protocol":"TCP"}]}}`,
		"Content-Type", "application/apply-patch+yaml")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	applied := r.object(t)
	fields = managedFieldsOf(t, applied)
	assert.Contains(t, fields["applier"], `"f:clusterIP"`, "an applied configuration owns the fields it names")
	assert.Contains(t, fields["applier"], `"f:name"`)
	assert.NotContains(t, applied["spec"].(map[string]any)["ports"].([]any)[0], "name")
}

// TestStatusWriteEncodesStatus checks that a status write stores the
// status as the real server's Go types encode it: zero omitempty scalars
// dropped, a condition's timestamps present as null and recorded.
func TestStatusWriteEncodesStatus(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const deploys = "/apis/apps/v1/namespaces/default/deployments"
	c.mustCreate(deploys, `{"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	r := c.do(http.MethodPatch, deploys+"/web/status?fieldManager=status", `{"status":{"replicas":0,"observedGeneration":0,
		"conditions":[{"type":"Available","status":"True","reason":"","message":""}]}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	obj := r.object(t)
	assert.Equal(t, map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "True", "lastUpdateTime": nil, "lastTransitionTime": nil}}}, obj["status"])
	assert.Equal(t, `{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:status":{},"f:type":{}}}}}`,
		managedFieldsOf(t, obj)["status"])
}
