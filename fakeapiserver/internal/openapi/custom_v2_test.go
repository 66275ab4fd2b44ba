package openapi

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSwaggerCustomNarrowing: a custom schema in /openapi/v2 is narrowed
// as the real server narrows it, and what is left is a document gnostic
// reads (so it encodes in protobuf).
func TestSwaggerCustomNarrowing(t *testing.T) {
	schema := `{"type":"object","properties":{"spec":{"type":"object",
		"required":["a","n","keep"],
		"anyOf":[{"required":["a"]},{"required":["n"]}],
		"properties":{
			"a":{"type":"string","default":"x","allOf":[{"minLength":1}],"oneOf":[{"pattern":"^a"}],"not":{"enum":["b"]}},
			"n":{"type":"object","nullable":true,"properties":{"x":{"type":"string"}}},
			"keep":{"type":"integer","minimum":1},
			"free":{"type":"array","items":{"type":"string"},"x-kubernetes-preserve-unknown-fields":true},
			"obj":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"x":{"type":"string"}}},
			"port":{"x-kubernetes-int-or-string":true},
			"tmpl":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}}},
			"loose":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
			"m":{"type":"object","required":["z"],"additionalProperties":{"type":"string","nullable":true}}}}}}`
	widget := Resource{Group: "example.com", Version: "v1", Plural: "widgets", Kind: "Widget", Namespaced: true,
		Verbs: []string{"get", "list", "patch", "create"}, Custom: true, Schema: json.RawMessage(schema)}
	free := Resource{Group: "example.com", Version: "v1", Plural: "frees", Kind: "Free", Namespaced: true,
		Verbs: []string{"get"}, Custom: true, Schema: json.RawMessage(`{"type":"object","description":"Anything.","x-kubernetes-preserve-unknown-fields":true}`)}
	docs := map[string][]byte{Path("example.com", "v1"): CustomGroupVersion("example.com", "v1", []Resource{widget, free}, Builtin())}
	js, err := Swagger(docs)
	require.NoError(t, err)
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal(js, &doc))
	spec := doc.Definitions["com.example.v1.Widget"]["properties"].(map[string]any)["spec"].(map[string]any)
	props := spec["properties"].(map[string]any)
	assert.NotContains(t, spec, "anyOf")
	assert.Equal(t, []any{"a", "keep"}, spec["required"], "a nullable member is not required")
	assert.Equal(t, map[string]any{"type": "string"}, props["a"], "no default, allOf, oneOf, not")
	assert.Equal(t, map[string]any{}, props["n"], "nullable: no type, properties")
	assert.Equal(t, map[string]any{"type": "integer", "minimum": float64(1)}, props["keep"])
	assert.Equal(t, map[string]any{"x-kubernetes-preserve-unknown-fields": true}, props["free"], "no items, so no type")
	assert.Equal(t, map[string]any{"x-kubernetes-preserve-unknown-fields": true}, props["obj"])
	assert.Equal(t, map[string]any{"x-kubernetes-int-or-string": true}, props["port"])
	assert.Equal(t, map[string]any{"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}, props["loose"])
	tmpl := props["tmpl"].(map[string]any)
	assert.Equal(t, "object", tmpl["type"], "an embedded resource with a schema keeps it")
	assert.Equal(t, []any{"kind", "apiVersion"}, tmpl["required"])
	assert.Equal(t, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", tmpl["properties"].(map[string]any)["metadata"].(map[string]any)["$ref"])
	m := props["m"].(map[string]any)
	assert.NotContains(t, m, "required", "nullable additionalProperties clear required")
	assert.Equal(t, map[string]any{}, m["additionalProperties"])
	assert.Equal(t, map[string]any{"type": "object", "x-kubernetes-group-version-kind": []any{
		map[string]any{"group": "example.com", "kind": "Free", "version": "v1"}}}, doc.Definitions["com.example.v1.Free"],
		"a root keeping unknown fields is an untyped object")

	_, err = SwaggerProto(js)
	require.NoError(t, err, "gnostic reads every member left")
}
