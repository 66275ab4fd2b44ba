package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The answers are a real kube-apiserver v1.37.2's: a schema that is not
// structural refuses the CRD, its rules not compiled.
func TestCRDSchemaNotStructural(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.post(crdPath, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"nss.example.net"},"spec":{"group":"example.net","names":{"plural":"nss","kind":"Ns"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":`+
		`{"type":"object","properties":{"spec":{"type":"array","x-kubernetes-validations":[{"rule":"self.x"}]},"a":{"properties":{}},"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}}}}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	var got []string
	for _, cause := range r.status(t).Details.Causes {
		got = append(got, cause.Field+": "+cause.Message)
	}
	assert.ElementsMatch(t, []string{
		"spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
		"spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
		"spec.validation.openAPIV3Schema.properties[spec].items: Required value: must be specified",
	}, got)
}

// TestCRDSchemaNotStructuralInJunctors: what allOf, anyOf, oneOf and not
// may not say (shape, defaults, nullable, the extensions, metadata), each
// at its place, and a field the root's junctors speak of that the root
// does not specify; the int-or-string anyOf is allowed.
func TestCRDSchemaNotStructuralInJunctors(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.post(crdPath, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"jns.example.net"},"spec":{"group":"example.net","names":{"plural":"jns","kind":"Jn"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":`+
		`{"type":"object","anyOf":[{"properties":{"missing":{}}},{"properties":{"spec":{"items":{"minLength":1}}}}],"properties":{"spec":{"type":"object",`+
		`"anyOf":[{"type":"string"},{"properties":{"metadata":{}}}],"allOf":[{"description":"d","properties":{"a":{"nullable":true,"default":1}}}],`+
		`"oneOf":[{"x-kubernetes-preserve-unknown-fields":true}],"not":{"title":"t","anyOf":[{"x-kubernetes-embedded-resource":true}]},`+
		`"properties":{"a":{"type":"integer"},"port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}}}}}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	var got []string
	for _, cause := range r.status(t).Details.Causes {
		got = append(got, cause.Field+": "+cause.Message)
	}
	const p = "spec.validation.openAPIV3Schema"
	assert.ElementsMatch(t, []string{
		p + ".properties[spec].anyOf[0].type: Forbidden: must be empty to be structural",
		p + ".properties[spec].anyOf[1].properties[metadata]: Forbidden: must not be specified in a nested context",
		p + ".properties[spec].allOf[0].description: Forbidden: must be empty to be structural",
		p + ".properties[spec].allOf[0].properties[a].default: Forbidden: must be undefined to be structural",
		p + ".properties[spec].allOf[0].properties[a].nullable: Forbidden: must be false to be structural",
		p + ".properties[spec].oneOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural",
		p + ".properties[spec].not.title: Forbidden: must be empty to be structural",
		p + ".properties[spec].not.anyOf[0].x-kubernetes-embedded-resource: Forbidden: must be false to be structural",
		p + ".properties[missing]: Required value: because it is defined in " + p + ".anyOf[0].properties[missing]",
		p + ".properties[spec].items: Required value: because it is defined in " + p + ".anyOf[1].properties[spec].items",
	}, got)
}

// TestCRDSchemaInvalidPattern: a pattern Go's regexp cannot compile, on a
// field or under a junctor, refuses the CRD (the real server compiles
// patterns with the same package); a valid one is accepted.
func TestCRDSchemaInvalidPattern(t *testing.T) {
	_, c := newTestServer(t, Options{})
	crd := func(name, field string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + name + `s.example.net"},"spec":{"group":"example.net","names":{"plural":"` + name + `s","kind":"` + name + `"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` +
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"name":` + field + `}}}}}}]}}`
	}
	r := c.post(crdPath, crd("bad", `{"type":"string","pattern":"[a-z","anyOf":[{"pattern":"(x"}]}`))
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	var got []string
	for _, cause := range r.status(t).Details.Causes {
		got = append(got, string(cause.Type)+" "+cause.Field+": "+cause.Message)
	}
	const p = "spec.validation.openAPIV3Schema.properties[spec].properties[name]"
	assert.Equal(t, []string{
		"FieldValueInvalid " + p + ".anyOf[0].pattern: Invalid value: \"(x\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `(x`",
		"FieldValueInvalid " + p + ".pattern: Invalid value: \"[a-z\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: `[a-z`",
	}, got)
	r = c.post(crdPath, crd("good", `{"type":"string","pattern":"^[a-z]+$"}`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
}
