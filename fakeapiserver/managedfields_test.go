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
