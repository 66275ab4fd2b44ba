package crd

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// TestCustomResourceDeprecationAndSelectableFields: deprecated versions
// warn on every request (the default wording or the CRD's), and
// selectableFields are field selectors; an undeclared one is refused.
func TestCustomResourceDeprecationAndSelectableFields(t *testing.T) {
	c := newClient(t)
	ns := target.Get(t).Namespace(t)
	v1 := "/apis/e2e.kubecache.io/v1/namespaces/" + ns + "/e2esels"
	v1beta1 := "/apis/e2e.kubecache.io/v1beta1/namespaces/" + ns + "/e2esels"
	schema := `
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
    selectableFields:
    - jsonPath: .spec.color`
	installCRD(t, c, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: e2esels.e2e.kubecache.io}
spec:
  group: e2e.kubecache.io
  names: {plural: e2esels, kind: E2ESel}
  scope: Namespaced
  versions:
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: e2e.kubecache.io/v1beta1 E2ESel is going away`+schema+`
  - name: v1
    served: true
    storage: true
    deprecated: true`+schema+`
`, v1)

	r := c.do(http.MethodPost, v1, `{"apiVersion":"e2e.kubecache.io/v1","kind":"E2ESel","metadata":{"name":"red"},"spec":{"color":"red"}}`, "")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, []string{`299 - "e2e.kubecache.io/v1 E2ESel is deprecated"`}, r.header.Values("Warning"))
	r = c.do(http.MethodPost, v1beta1, `{"apiVersion":"e2e.kubecache.io/v1beta1","kind":"E2ESel","metadata":{"name":"blue"},"spec":{"color":"blue"}}`, "")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, []string{`299 - "e2e.kubecache.io/v1beta1 E2ESel is going away"`}, r.header.Values("Warning"))

	r = c.do(http.MethodGet, v1+"?fieldSelector=spec.color%3Dred", "", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var names []string
	for _, it := range r.object(t)["items"].([]any) {
		names = append(names, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
	}
	assert.Equal(t, []string{"red"}, names)

	r = c.do(http.MethodGet, v1+"?fieldSelector=spec.size%3Dbig", "", "")
	require.Equal(t, http.StatusBadRequest, r.code, "%s", r.body)
	assert.Equal(t, "field label not supported: spec.size", statusOf(t, r).Message)
}
