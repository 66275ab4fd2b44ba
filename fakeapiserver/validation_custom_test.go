package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

const typedGadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.example.com"},
"spec":{"group":"example.com","names":{"plural":"gadgets","kind":"Gadget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"},"ratio":{"type":"number"},
"on":{"type":"boolean"},"port":{"x-kubernetes-int-or-string":true},"opt":{"type":"string","nullable":true},"m":{"type":"object","additionalProperties":{"type":"string"}},
"tags":{"type":"array","items":{"type":"string"}},"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},"sub":{"type":"object","properties":{"a":{"type":"string"}}}}}}}}}]}}`

const typedGadgetsPath = "/apis/example.com/v1/namespaces/default/gadgets"

func gadget(name, spec string) string {
	return `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

// The messages are a real kube-apiserver v1.37.2's answers to the same
// definition and bodies (where it reports several errors, their order is
// its own and may differ).
func TestCustomResourcesAreCheckedAgainstTheirSchema(t *testing.T) {
	s := NewForTest(t, Options{})
	rec := serve(s, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", typedGadgetCRD)
	require.Equal(t, http.StatusCreated, rec.Code, "%s", rec.Body)

	invalid := []struct{ what, spec, want string }{
		{"a string for an object", `"x"`, `Gadget.example.com "w" is invalid: spec: Invalid value: "string": spec in body must be of type object: "string"`},
		{"a string for a boolean", `{"on":"x"}`, `Gadget.example.com "w" is invalid: spec.on: Invalid value: "string": spec.on in body must be of type boolean: "string"`},
		{"a boolean for an int-or-string", `{"port":true}`, `Gadget.example.com "w" is invalid: spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`},
		{"a fraction for an integer", `{"size":1.5}`, `Gadget.example.com "w" is invalid: [spec.size: Invalid value: "number": spec.size in body must be of type integer: "number", <nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.size]`},
		{"an integer for a string list item", `{"tags":[1]}`, `Gadget.example.com "w" is invalid: spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"`},
		{"an integer for a map value", `{"m":{"a":1}}`, `Gadget.example.com "w" is invalid: spec.m.a: Invalid value: "integer": spec.m.a in body must be of type string: "integer"`},
		{"several", `{"ratio":"1","sub":"x"}`, `Gadget.example.com "w" is invalid: [spec.ratio: Invalid value: "string": spec.ratio in body must be of type number: "string", spec.sub: Invalid value: "string": spec.sub in body must be of type object: "string"]`},
	}
	for _, c := range invalid {
		rec := serve(s, http.MethodPost, typedGadgetsPath, "application/json", gadget("w", c.spec))
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%s: %s", c.what, rec.Body)
		var st meta.Status
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
		assert.Equal(t, c.want, st.Message, c.what)
	}

	// Unknown fields are pruned and reported, and so is a null where the
	// schema does not say nullable; int-or-string either way and anything
	// under preserve-unknown-fields are kept.
	rec = serve(s, http.MethodPost, typedGadgetsPath, "application/json",
		`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"ok"},"spec":{"size":null,"opt":null,"port":"80","ratio":1,"free":{"x":{"y":1}},"sub":{"a":"b","b":1},"zz":[1]},"top":1}`)
	require.Equal(t, http.StatusCreated, rec.Code, "%s", rec.Body)
	assert.Equal(t, []string{`299 - "unknown field \"spec.sub.b\""`, `299 - "unknown field \"spec.zz\""`, `299 - "unknown field \"top\""`}, rec.Header().Values("Warning"))
	got := rec.Body.String()
	assert.Contains(t, got, `"spec":{"opt":null,"port":"80","ratio":1,"free":{"x":{"y":1}},"sub":{"a":"b"}}`)
	assert.NotContains(t, got, `"top"`)

	// Under Strict an unknown field is refused before any type error.
	rec = serve(s, http.MethodPost, typedGadgetsPath+"?fieldValidation=Strict", "application/json", gadget("w", `{"size":"x","sub":{"b":1}}`))
	require.Equal(t, http.StatusBadRequest, rec.Code, "%s", rec.Body)
	var st meta.Status
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	assert.Equal(t, `Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.sub.b"`, st.Message)

	// Metadata is decoded alone, so its type errors name ObjectMeta.labels.
	rec = serve(s, http.MethodPost, typedGadgetsPath, "application/json", `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"w","labels":{"a":1}}}`)
	require.Equal(t, http.StatusBadRequest, rec.Code, "%s", rec.Body)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	assert.Equal(t, `Gadget in version "v1" cannot be handled as a Gadget: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string`, st.Message)

	// A merge patch that breaks a type is refused with the same 422.
	rec = serve(s, http.MethodPatch, typedGadgetsPath+"/ok", "application/merge-patch+json", `{"spec":{"on":"yes"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%s", rec.Body)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	assert.True(t, strings.HasSuffix(st.Message, `spec.on in body must be of type boolean: "string"`), st.Message)
}
