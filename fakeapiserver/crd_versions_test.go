package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two served versions with the None conversion strategy: one storage, one
// deprecated. The answers are a real kube-apiserver v1.37.2's.
const twoVersionCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.org}
spec:
  group: example.org
  names: {plural: gadgets, kind: Gadget}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v2
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v3
    served: true
    storage: false
    deprecated: true
    deprecationWarning: "use example.org/v1"
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

func TestCustomResourceVersions(t *testing.T) {
	_, c := newTestServer(t, Options{})
	crd := c.mustCreate(crdPath, yamlToJSON(t, twoVersionCRD))
	assert.Equal(t, []any{"v1"}, crd["status"].(map[string]any)["storedVersions"])

	c.mustCreate("/apis/example.org/v1/gadgets", `{"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"a":1}}`)
	r := c.get("/apis/example.org/v2/gadgets/g")
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, "example.org/v2", r.object(t)["apiVersion"], "the None strategy rewrites apiVersion only")
	assert.Equal(t, map[string]any{"a": float64(1)}, r.object(t)["spec"])
	assert.Equal(t, []string{`299 - "example.org/v2 Gadget is deprecated"`}, r.header.Values("Warning"))
	assert.Equal(t, []string{`299 - "use example.org/v1"`}, c.get("/apis/example.org/v3/gadgets").header.Values("Warning"))
	assert.Empty(t, c.get("/apis/example.org/v1/gadgets/g").header.Values("Warning"))
	for _, v := range []string{"v1", "v2", "v3"} {
		assert.NotEmpty(t, openAPIIndexURL(t, c, "apis/example.org/"+v), "every served version is published")
	}
}
