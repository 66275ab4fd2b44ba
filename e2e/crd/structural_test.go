package crd

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCustomResourceSchemaNotStructural: a CRD whose schema is not
// structural is refused with the real reasons, each at its place, and
// its rules are not compiled; under allOf, anyOf, oneOf and not only
// value validations may stand (the int-or-string anyOf excepted), and
// what the root's junctors say of a field the root must specify.
func TestCustomResourceSchemaNotStructural(t *testing.T) {
	c := newClient(t)
	for _, row := range []struct {
		schema string
		want   []string
	}{
		{`{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}`, []string{
			"FieldValueRequired spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
		}},
		{`{"type":"object","properties":{"spec":{"type":"array"},"l":{"type":"array","items":{}}}}`, []string{
			"FieldValueRequired spec.validation.openAPIV3Schema.properties[l].items.type: Required value: must not be empty for specified array items",
			"FieldValueRequired spec.validation.openAPIV3Schema.properties[spec].items: Required value: must be specified",
		}},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}}}`, []string{
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
		}},
		{`{"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}}`, []string{
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
		}},
		{`{"properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.x"}]}}}`, []string{
			"FieldValueRequired spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root",
		}},
		{`{"type":"object","properties":{"e":{"x-kubernetes-embedded-resource":true},"kind":{"type":"integer"}}}`, []string{
			"FieldValueInvalid spec.validation.openAPIV3Schema.properties[kind].type: Invalid value: \"integer\": must be string",
			"FieldValueRequired spec.validation.openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
			"FieldValueRequired spec.validation.openAPIV3Schema.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true",
		}},
		{`{"type":"object","anyOf":[{"properties":{"missing":{}}}],"properties":{"spec":{"type":"object","anyOf":[{"type":"string"}],` +
			`"allOf":[{"description":"d","properties":{"a":{"nullable":true}}}],"oneOf":[{"x-kubernetes-preserve-unknown-fields":true}],` +
			`"not":{"title":"t","properties":{"metadata":{}}},` +
			`"properties":{"a":{"type":"integer"},"port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}}}`, []string{
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].allOf[0].description: Forbidden: must be empty to be structural",
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].allOf[0].properties[a].nullable: Forbidden: must be false to be structural",
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural",
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].not.properties[metadata]: Forbidden: must not be specified in a nested context",
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].not.title: Forbidden: must be empty to be structural",
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].oneOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural",
			"FieldValueRequired spec.validation.openAPIV3Schema.properties[missing]: Required value: because it is defined in spec.validation.openAPIV3Schema.anyOf[0].properties[missing]",
		}},
	} {
		crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"e2enss.e2e.kubecache.io"},"spec":{"group":"e2e.kubecache.io","names":{"plural":"e2enss","kind":"E2ENs"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` + row.schema + `}}]}}`
		assert.Equal(t, row.want, c.do(http.MethodPost, crdPath+"?dryRun=All", crd, "").causes(t), row.schema)
	}
}
