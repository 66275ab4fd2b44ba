package crd

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCustomResourceSchemaRules: what a CRD schema may not say besides
// being structural, each refused with the real reason at its place: a
// pattern Go's regexp cannot compile, the JSON Schema keywords a CRD
// does not support, types outside OpenAPI's, defaults in the top-level
// metadata, the list and map extensions and what they require of their
// items, and the form of each x-kubernetes-validations entry.
func TestCustomResourceSchemaRules(t *testing.T) {
	c := newClient(t)
	const p = "spec.validation.openAPIV3Schema"
	for _, row := range []struct {
		schema string
		want   []string
	}{
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"name":{"type":"string","pattern":"[a-z"},` +
			`"ok":{"type":"string","pattern":"^[a-z]+$"},"any":{"type":"string","anyOf":[{"pattern":"(x"}]}}}}}`, []string{
			"FieldValueInvalid " + p + ".properties[spec].properties[any].anyOf[0].pattern: Invalid value: \"(x\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `(x`",
			"FieldValueInvalid " + p + ".properties[spec].properties[name].pattern: Invalid value: \"[a-z\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: `[a-z`",
		}},
		{`{"type":"object","properties":{"spec":{"type":"object","uniqueItems":true,"id":"x","$ref":"#/a","additionalItems":false,` +
			`"properties":{"n":{"type":"null"},"d":{"type":"date"},"l":{"type":"array","items":[{"type":"string"}]}}}}}`, []string{
			"FieldValueForbidden " + p + ".properties[spec].$ref: Forbidden: $ref is not supported",
			"FieldValueForbidden " + p + ".properties[spec].additionalItems: Forbidden: additionalItems is not supported",
			"FieldValueForbidden " + p + ".properties[spec].id: Forbidden: id is not supported",
			"FieldValueForbidden " + p + ".properties[spec].properties[l].items: Forbidden: items must be a schema object and not an array",
			"FieldValueForbidden " + p + ".properties[spec].properties[n].type: Forbidden: type cannot be set to null, use nullable as an alternative",
			"FieldValueForbidden " + p + ".properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
			"FieldValueNotSupported " + p + ".properties[spec].properties[d].type: Unsupported value: \"date\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
			"FieldValueNotSupported " + p + ".properties[spec].properties[n].type: Unsupported value: \"null\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
		}},
		{`{"type":"object","nullable":true,"properties":{"kind":{"type":"string","default":"W"},` +
			`"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":false,"properties":{"a":{"type":"string"}},"additionalProperties":false}}}`, []string{
			"FieldValueForbidden " + p + ".nullable: Forbidden: nullable cannot be true at the root",
			"FieldValueForbidden " + p + ".properties[kind].default: Forbidden: must not be set in top-level kind",
			"FieldValueForbidden " + p + ".properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
			"FieldValueInvalid " + p + ".properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined",
		}},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{` +
			`"m":{"type":"string","x-kubernetes-map-type":"atomic"},"g":{"type":"object","x-kubernetes-map-type":"loose"},` +
			`"s":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","nullable":true}},` +
			`"t":{"type":"array","x-kubernetes-list-type":"tree","items":{"type":"string"}},` +
			`"k":{"type":"array","x-kubernetes-list-map-keys":["a"],"items":{"type":"string"}},` +
			`"x":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","o","z","a"],"items":{"type":"object","required":["a"],` +
			`"properties":{"a":{"type":"string"},"o":{"type":"object","nullable":true}}}},` +
			`"y":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"string"}}}}}}`, []string{
			"FieldValueForbidden " + p + ".properties[spec].properties[s].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set",
			"FieldValueForbidden " + p + ".properties[spec].properties[x].items.properties[o].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
			"FieldValueInvalid " + p + ".properties[spec].properties[m].type: Invalid value: \"string\": must be object if x-kubernetes-map-type is specified",
			"FieldValueInvalid " + p + ".properties[spec].properties[s].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
			"FieldValueInvalid " + p + ".properties[spec].properties[x].items.properties[o].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
			"FieldValueInvalid " + p + ".properties[spec].properties[x].x-kubernetes-list-map-keys: Invalid value: [\"a\",\"o\",\"z\",\"a\"]: entries must all be names of item properties",
			"FieldValueInvalid " + p + ".properties[spec].properties[x].x-kubernetes-list-map-keys: Invalid value: [\"a\",\"o\",\"z\",\"a\"]: must not contain duplicate entries",
			"FieldValueInvalid " + p + ".properties[spec].properties[y].items.type: Invalid value: \"string\": must be object if parent array's x-kubernetes-list-type is map",
			"FieldValueNotSupported " + p + ".properties[spec].properties[g].x-kubernetes-map-type: Unsupported value: \"loose\": supported values: \"atomic\", \"granular\"",
			"FieldValueNotSupported " + p + ".properties[spec].properties[t].x-kubernetes-list-type: Unsupported value: \"tree\": supported values: \"atomic\", \"set\", \"map\"",
			"FieldValueRequired " + p + ".properties[spec].properties[k].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty",
			"FieldValueRequired " + p + ".properties[spec].properties[x].items.properties[o].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
			"FieldValueRequired " + p + ".properties[spec].properties[y].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map",
		}},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"},"m":{"type":"object","additionalProperties":{"type":"string"}}},` +
			`"x-kubernetes-validations":[{"rule":" "},{"rule":"true","message":"  "},{"rule":"true","message":"a\nb"},{"rule":"true &&\ntrue"},` +
			`{"rule":"true","messageExpression":" "},{"rule":"true","reason":"Bad"},{"rule":"true","fieldPath":".b"},{"rule":"true","fieldPath":".a"},` +
			`{"rule":"true","fieldPath":".m['k.x']"},{"rule":"true","fieldPath":"a"}]}}}`, []string{
			"FieldValueInvalid " + p + ".properties[spec].x-kubernetes-validations[1].message: Invalid value: \"  \": must be non-empty if specified",
			"FieldValueInvalid " + p + ".properties[spec].x-kubernetes-validations[2].message: Invalid value: \"a\\nb\": must not contain line breaks",
			"FieldValueInvalid " + p + ".properties[spec].x-kubernetes-validations[6].fieldPath: Invalid value: \".b\": must be a valid path",
			"FieldValueInvalid " + p + ".properties[spec].x-kubernetes-validations[9].fieldPath: Invalid value: \"a\": must be a valid path",
			"FieldValueNotSupported " + p + ".properties[spec].x-kubernetes-validations[5].reason: Unsupported value: \"Bad\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
			"FieldValueRequired " + p + ".properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified",
			"FieldValueRequired " + p + ".properties[spec].x-kubernetes-validations[3].message: Required value: message must be specified if rule contains line breaks",
			"FieldValueRequired " + p + ".properties[spec].x-kubernetes-validations[4].messageExpression: Required value: messageExpression must be non-empty if specified",
		}},
		{`{"type":"object","properties":{"port":{"x-kubernetes-int-or-string":true,"x-kubernetes-preserve-unknown-fields":true}}}`, []string{
			"FieldValueInvalid " + p + ".properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
		}},
	} {
		crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"e2ers.e2e.kubecache.io"},"spec":{"group":"e2e.kubecache.io","names":{"plural":"e2ers","kind":"E2ER"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` + row.schema + `}}]}}`
		assert.Equal(t, row.want, c.do(http.MethodPost, crdPath+"?dryRun=All", crd, "").causes(t), row.schema)
	}
}
