package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSwaggerFromGroupVersionDocuments(t *testing.T) {
	defs := Builtin()
	docs := map[string][]byte{
		Path("apps", "v1"): GroupVersion("apps", "v1", []Resource{{Group: "apps", Version: "v1", Plural: "deployments", Kind: "Deployment", Namespaced: true,
			Verbs: []string{"create", "delete", "get", "list", "patch", "update"}}}, defs),
		Path("example.com", "v1"): GroupVersion("example.com", "v1", []Resource{{Group: "example.com", Version: "v1", Plural: "widgets", Kind: "Widget",
			Verbs: []string{"get", "patch"}}}, defs),
	}
	b, err := Swagger(docs)
	require.NoError(t, err)
	var doc struct {
		Swagger     string                    `json:"swagger"`
		Paths       map[string]map[string]any `json:"paths"`
		Definitions map[string]map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	assert.Equal(t, "2.0", doc.Swagger)

	patch, _ := doc.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"].(map[string]any)
	require.NotNil(t, patch, "the deployment's PATCH operation")
	assert.Equal(t, map[string]any{"group": "apps", "version": "v1", "kind": "Deployment"}, patch["x-kubernetes-group-version-kind"])
	assert.Contains(t, patch["consumes"], "application/strategic-merge-patch+json")
	params, _ := patch["parameters"].([]any)
	require.NotEmpty(t, params)
	assert.Equal(t, map[string]any{"name": "body", "in": "body", "required": true,
		"schema": map[string]any{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}}, params[0])
	assert.Contains(t, params, map[string]any{"name": "fieldValidation", "in": "query", "type": "string", "uniqueItems": true})
	assert.Equal(t, map[string]any{"description": "OK", "schema": map[string]any{"$ref": "#/definitions/io.k8s.api.apps.v1.Deployment"}},
		patch["responses"].(map[string]any)["200"])

	spec := doc.Definitions["io.k8s.api.apps.v1.DeploymentSpec"]
	require.NotNil(t, spec)
	props := spec["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}, props["selector"], "a lone allOf is the reference")
	assert.Equal(t, "retainKeys", props["strategy"].(map[string]any)["x-kubernetes-patch-strategy"])
	assert.Equal(t, map[string]any{"type": "string", "format": "int-or-string"}, doc.Definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"])
	assert.Contains(t, doc.Definitions, "com.example.v1.Widget", "custom kinds keep their schema")
	assert.NotContains(t, string(b), "#/components/schemas/", "every reference points into definitions")
}

func TestSwaggerRejectsBrokenDocument(t *testing.T) {
	_, err := Swagger(map[string][]byte{"api/v1": []byte("{")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "openapi v3 document api/v1")
}

// BenchmarkSwagger renders /openapi/v2 from a v3 document per built-in
// group version (every kind served), as the server does once per
// registry generation.
func BenchmarkSwagger(b *testing.B) {
	docs := builtinDocs()
	b.ReportAllocs()
	for b.Loop() {
		out, err := Swagger(docs)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(out)))
	}
}

// builtinDocs is a v3 document per built-in group version, every kind
// served.
func builtinDocs() map[string][]byte {
	defs := Builtin()
	served := map[[2]string][]Resource{}
	for _, name := range defs.Names() {
		for _, gvk := range defs.Get(name).GVK {
			if strings.HasSuffix(gvk.Kind, "List") || gvk.Kind == "DeleteOptions" || gvk.Kind == "WatchEvent" {
				continue
			}
			gv := [2]string{gvk.Group, gvk.Version}
			served[gv] = append(served[gv], Resource{Group: gvk.Group, Version: gvk.Version, Plural: strings.ToLower(gvk.Kind) + "s",
				Kind: gvk.Kind, Namespaced: true, Verbs: []string{"create", "delete", "get", "list", "patch", "update"}})
		}
	}
	docs := map[string][]byte{}
	for gv, rs := range served {
		docs[Path(gv[0], gv[1])] = GroupVersion(gv[0], gv[1], rs, defs)
	}
	return docs
}
