package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// gizmoCRD declares a schema with descriptions, a default, validation
// keywords, an int-or-string, an embedded resource and a status and scale
// subresource: what the published documents must carry.
const gizmoCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.example.com}
spec:
  group: example.com
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        description: A Gizmo is a thing that whirrs.
        properties:
          spec:
            type: object
            description: Spec is what the gizmo should be.
            required: [size]
            properties:
              size: {type: integer, description: Size in units., minimum: 1, default: 3}
              replicas: {type: integer}
              color: {type: string, description: Color of the casing., enum: [red, blue]}
              port: {x-kubernetes-int-or-string: true}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
          status:
            type: object
            properties:
              replicas: {type: integer}
`

// openAPIIndexURL returns the serverRelativeURL the /openapi/v3 index
// gives for a group-version path, or "" without one.
func openAPIIndexURL(t *testing.T, c *testClient, gv string) string {
	t.Helper()
	r := c.get("/openapi/v3")
	require.Equal(t, http.StatusOK, r.code)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(r.body, &index))
	return index.Paths[gv].ServerRelativeURL
}

func TestCustomResourceOpenAPIV3(t *testing.T) {
	_, c := newTestServer(t, Options{})
	assert.Empty(t, openAPIIndexURL(t, c, "apis/example.com/v1"))
	c.mustCreate(crdPath, yamlToJSON(t, gizmoCRD))

	url := openAPIIndexURL(t, c, "apis/example.com/v1")
	require.True(t, strings.HasPrefix(url, "/openapi/v3/apis/example.com/v1?hash="), url)
	hash := strings.TrimPrefix(url, "/openapi/v3/apis/example.com/v1?hash=")
	r := c.get(url)
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, "public, immutable", r.header.Get("Cache-Control"))
	assert.Equal(t, `"`+hash+`"`, r.header.Get("Etag"))
	assert.NotEmpty(t, r.header.Get("Expires"))
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))

	var doc struct {
		Info       map[string]string         `json:"info"`
		Paths      map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(r.body, &doc))
	assert.Equal(t, "Kubernetes CRD Swagger", doc.Info["title"])
	for _, name := range []string{"com.example.v1.Gizmo", "com.example.v1.GizmoList",
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
		"io.k8s.apimachinery.pkg.apis.meta.v1.Status", "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
		"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "io.k8s.api.autoscaling.v1.Scale"} {
		assert.Contains(t, doc.Components.Schemas, name)
	}
	gizmo := doc.Components.Schemas["com.example.v1.Gizmo"]
	assert.Equal(t, "A Gizmo is a thing that whirrs.", gizmo["description"])
	assert.Equal(t, []any{map[string]any{"group": "example.com", "kind": "Gizmo", "version": "v1"}}, gizmo["x-kubernetes-group-version-kind"])
	props := gizmo["properties"].(map[string]any)
	assert.Contains(t, props["apiVersion"].(map[string]any)["description"], "APIVersion defines the versioned schema")
	spec := props["spec"].(map[string]any)
	assert.Equal(t, "Spec is what the gizmo should be.", spec["description"])
	specProps := spec["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "integer", "description": "Size in units.", "minimum": float64(1), "default": float64(3)}, specProps["size"])
	assert.Equal(t, []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}, specProps["port"].(map[string]any)["anyOf"])
	tmpl := specProps["template"].(map[string]any)
	assert.Equal(t, []any{"kind", "apiVersion"}, tmpl["required"], "an embedded resource requires kind and apiVersion")
	assert.Contains(t, tmpl["properties"], "metadata")

	for _, p := range []string{"/apis/example.com/v1/namespaces/{namespace}/gizmos", "/apis/example.com/v1/namespaces/{namespace}/gizmos/{name}",
		"/apis/example.com/v1/namespaces/{namespace}/gizmos/{name}/status", "/apis/example.com/v1/namespaces/{namespace}/gizmos/{name}/scale",
		"/apis/example.com/v1/gizmos"} {
		assert.Contains(t, doc.Paths, p)
	}
	patch := doc.Paths["/apis/example.com/v1/namespaces/{namespace}/gizmos/{name}"]["patch"].(map[string]any)
	assert.Equal(t, "patchExampleComV1NamespacedGizmo", patch["operationId"])
	body := patch["requestBody"].(map[string]any)["content"].(map[string]any)
	assert.NotContains(t, body, "application/strategic-merge-patch+json", "custom resources take no strategic merge patch")

	// Caching: the ETag answers If-None-Match, a stale hash redirects.
	r = c.get("/openapi/v3/apis/example.com/v1", "If-None-Match", `"`+hash+`"`)
	assert.Equal(t, http.StatusNotModified, r.code)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(c.base + "/openapi/v3/apis/example.com/v1?hash=0123")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	assert.Equal(t, url, resp.Header.Get("Location"))

	// A change to the CRD changes the document and its hash.
	var crd map[string]any
	require.NoError(t, json.Unmarshal([]byte(yamlToJSON(t, gizmoCRD)), &crd))
	got := c.get(crdPath + "/gizmos.example.com").object(t)
	crd["metadata"] = got["metadata"]
	ver := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	ver["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)["weight"] = map[string]any{"type": "number", "description": "Weight in grams."}
	changed, err := json.Marshal(crd)
	require.NoError(t, err)
	r = c.do(http.MethodPut, crdPath+"/gizmos.example.com", string(changed))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	url2 := openAPIIndexURL(t, c, "apis/example.com/v1")
	assert.NotEqual(t, url, url2)
	assert.Contains(t, string(c.get(url2).body), "Weight in grams.")

	// Deleting it removes the document.
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, crdPath+"/gizmos.example.com", "").code)
	assert.Empty(t, openAPIIndexURL(t, c, "apis/example.com/v1"))
	assert.Equal(t, http.StatusNotFound, c.get("/openapi/v3/apis/example.com/v1").code)
}

func TestCustomResourceOpenAPIV2(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, yamlToJSON(t, gizmoCRD))
	r := c.get("/openapi/v2")
	require.Equal(t, http.StatusOK, r.code)
	var doc struct {
		Paths       map[string]any            `json:"paths"`
		Definitions map[string]map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal(r.body, &doc))
	require.Contains(t, doc.Definitions, "com.example.v1.Gizmo")
	assert.Contains(t, doc.Definitions, "com.example.v1.GizmoList")
	assert.Contains(t, doc.Paths, "/apis/example.com/v1/namespaces/{namespace}/gizmos/{name}")
	spec := doc.Definitions["com.example.v1.Gizmo"]["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
	// Swagger 2.0 cannot say these: the real server narrows them.
	assert.Equal(t, map[string]any{"type": "integer", "description": "Size in units.", "minimum": float64(1)}, spec["size"], "no default in v2")
	assert.Equal(t, map[string]any{"x-kubernetes-int-or-string": true}, spec["port"])
	assert.Equal(t, map[string]any{"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}, spec["template"])
	meta := doc.Definitions["com.example.v1.Gizmo"]["properties"].(map[string]any)["metadata"].(map[string]any)
	assert.Equal(t, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", meta["$ref"])

	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, crdPath+"/gizmos.example.com", "").code)
	assert.NotContains(t, string(c.get("/openapi/v2").body), "com.example.v1.Gizmo")
}

// yamlToJSON converts a YAML manifest for the JSON client.
func yamlToJSON(t *testing.T, y string) string {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	require.NoError(t, err)
	return string(j)
}
