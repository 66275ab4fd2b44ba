package crd

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCustomResourceStatusRootKeywords: with the status subresource on,
// the root of a CRD's schema may set only the keywords that keep
// holding of properties.status alone. The first refused keyword, in the
// real server's order, is the one error, its value the whole schema as
// the real server prints it; a version without the subresource may set
// them, unless its schema is shared with a version that has it.
func TestCustomResourceStatusRootKeywords(t *testing.T) {
	c := newClient(t)
	const allowed = "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]"
	version := func(name, schema string, status bool) string {
		sub := ""
		if status {
			sub = `,"subresources":{"status":{}}`
		}
		return `{"name":"` + name + `","served":true,"storage":` + map[bool]string{true: "true", false: "false"}[name == "v1"] + `,"schema":{"openAPIV3Schema":` + schema + `}` + sub + `}`
	}
	const p = "spec.validation.openAPIV3Schema"
	for _, row := range []struct {
		versions []string
		want     []string
	}{
		{[]string{version("v1", `{"type":"object","minProperties":1,"anyOf":[{"required":["spec"]}],"properties":{"spec":{"type":"object","default":{"b":2,"a":1.5},"properties":{"a":{"type":"number"},"b":{"type":"integer"}}}}}`, true)}, []string{
			"FieldValueInvalid " + p + ": Invalid value: " + internalSchema(`"Type":"object"`, `"MinProperties":1`, `"AnyOf":[`+internalSchema(`"Required":["spec"]`)+`]`,
				`"Properties":{"spec":`+internalSchema(`"Type":"object"`, `"Default":{"a":1.5,"b":2}`,
					`"Properties":{"a":`+internalSchema(`"Type":"number"`)+`,"b":`+internalSchema(`"Type":"integer"`)+`}`)+`}`) + ": only " + allowed + " fields are allowed at the root of the schema if the status subresource is enabled",
		}},
		{[]string{version("v1", `{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"atomic"}`, true)}, []string{
			"FieldValueInvalid " + p + ".type: Invalid value: \"array\": must be object at the root",
			"FieldValueInvalid " + p + ".type: Invalid value: \"array\": only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
		}},
		{[]string{version("v1", `{"type":"object","description":"d","required":["spec"],"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"true"}],"properties":{"spec":{"type":"object"}}}`, true)}, nil},
		// Not shared: only the version with the subresource is held to the rule.
		{[]string{version("v1", `{"type":"object","maxProperties":3}`, false), version("v2", `{"type":"object","maxProperties":4}`, true)}, []string{
			"FieldValueInvalid spec.versions[1].schema.openAPIV3Schema: Invalid value: " + internalSchema(`"Type":"object"`, `"MaxProperties":4`) + ": only " + allowed + " fields are allowed at the root of the schema if the status subresource is enabled",
		}},
		{[]string{version("v1", `{"type":"object","maxProperties":3}`, false), version("v2", `{"type":"object","maxProperties":3}`, true)}, []string{
			"FieldValueInvalid " + p + ": Invalid value: " + internalSchema(`"Type":"object"`, `"MaxProperties":3`) + ": only " + allowed + " fields are allowed at the root of the schema if the status subresource is enabled",
		}},
		{[]string{version("v1", `{"type":"object","maxProperties":3}`, false)}, nil},
	} {
		crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"e2ers.e2e.kubecache.io"},"spec":{"group":"e2e.kubecache.io","names":{"plural":"e2ers","kind":"E2ER"},"scope":"Namespaced","versions":[` + strings.Join(row.versions, ",") + `]}}`
		r := c.do(http.MethodPost, crdPath+"?dryRun=All", crd, "")
		if row.want == nil {
			assert.Equal(t, http.StatusCreated, r.code, "%s", r.body)
			continue
		}
		assert.Equal(t, row.want, r.causes(t), strings.Join(row.versions, ","))
	}
}

// internalSchema is a schema as the real server prints its internal
// type in an error: every field, the given ones set ("Name":value, in
// the type's order) and the rest their zero values.
func internalSchema(set ...string) string {
	fields := []struct{ name, zero string }{
		{"ID", `""`}, {"Schema", `""`}, {"Ref", "null"}, {"Description", `""`}, {"Type", `""`}, {"Nullable", "false"},
		{"Format", `""`}, {"Title", `""`}, {"Default", "null"}, {"Maximum", "null"}, {"ExclusiveMaximum", "false"},
		{"Minimum", "null"}, {"ExclusiveMinimum", "false"}, {"MaxLength", "null"}, {"MinLength", "null"}, {"Pattern", `""`},
		{"MaxItems", "null"}, {"MinItems", "null"}, {"UniqueItems", "false"}, {"MultipleOf", "null"}, {"Enum", "null"},
		{"MaxProperties", "null"}, {"MinProperties", "null"}, {"Required", "null"}, {"Items", "null"}, {"AllOf", "null"},
		{"OneOf", "null"}, {"AnyOf", "null"}, {"Not", "null"}, {"Properties", "null"}, {"AdditionalProperties", "null"},
		{"PatternProperties", "null"}, {"Dependencies", "null"}, {"AdditionalItems", "null"}, {"Definitions", "null"},
		{"ExternalDocs", "null"}, {"Example", "null"}, {"XPreserveUnknownFields", "null"}, {"XEmbeddedResource", "false"},
		{"XIntOrString", "false"}, {"XListMapKeys", "null"}, {"XListType", "null"}, {"XMapType", "null"}, {"XValidations", "null"},
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		v := `"` + f.name + `":` + f.zero
		for _, s := range set {
			if strings.HasPrefix(s, `"`+f.name+`":`) {
				v = s
			}
		}
		b.WriteString(v)
	}
	b.WriteByte('}')
	return b.String()
}
