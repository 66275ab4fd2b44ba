package crd

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var readsCRD = e2eCRD("e2ereads", "E2ERead", `
            properties:
              a: {type: string}
              old: {type: string}
`)

// TestCustomResourceReadWithChangedSchema: once a CRD gains defaults and
// loses a field, an object stored before is read with the defaults and
// without the field, its resourceVersion and generation unchanged.
func TestCustomResourceReadWithChangedSchema(t *testing.T) {
	c := newClient(t)
	const reads = "/apis/e2e.kubecache.io/v1/namespaces/default/e2ereads"
	installCRD(t, c, readsCRD, reads)
	r := c.do(http.MethodPost, reads, `{"apiVersion":"e2e.kubecache.io/v1","kind":"E2ERead","metadata":{"name":"one"},"spec":{"a":"x","old":"y"}}`, "")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	md := r.object(t)["metadata"].(map[string]any)

	crd := c.do(http.MethodGet, crdPath+"/e2ereads.e2e.kubecache.io", "", "").object(t)
	props := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
	delete(props, "old")
	props["b"] = map[string]any{"type": "string", "default": "B"}
	props["c"] = map[string]any{"type": "object", "default": map[string]any{}, "properties": map[string]any{"d": map[string]any{"type": "integer", "default": 4}}}
	body, err := json.Marshal(crd)
	require.NoError(t, err)
	r = c.do(http.MethodPut, crdPath+"/e2ereads.e2e.kubecache.io", string(body), "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	want := map[string]any{"a": "x", "b": "B", "c": map[string]any{"d": float64(4)}}
	var got map[string]any
	eventually(t, "the object read with the new schema", func() bool {
		got = c.do(http.MethodGet, reads+"/one", "", "").object(t)
		return reflect.DeepEqual(got["spec"], want)
	})
	gotMD := got["metadata"].(map[string]any)
	assert.Equal(t, md["resourceVersion"], gotMD["resourceVersion"])
	assert.Equal(t, md["generation"], gotMD["generation"])
	list := c.do(http.MethodGet, reads, "", "")
	assert.True(t, strings.Contains(string(list.body), `"spec":{"a":"x","b":"B","c":{"d":4}}`), "%s", list.body)
}
