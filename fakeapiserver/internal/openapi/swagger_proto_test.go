package openapi

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// pbMsg is a protobuf message decoded without its schema: each field
// number's values in order (nested messages, strings and bytes as []byte,
// varints and fixed64s as uint64).
type pbMsg map[protowire.Number][]any

// decodePB decodes one message's fields, failing on malformed input.
func decodePB(t *testing.T, b []byte) pbMsg {
	t.Helper()
	m := pbMsg{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		require.GreaterOrEqual(t, n, 0, "tag: %v", protowire.ParseError(n))
		b = b[n:]
		var v any
		switch typ {
		case protowire.BytesType:
			var s []byte
			s, n = protowire.ConsumeBytes(b)
			v = s
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		default:
			t.Fatalf("field %d: wire type %d", num, typ)
		}
		require.GreaterOrEqual(t, n, 0, "field %d: %v", num, protowire.ParseError(n))
		b = b[n:]
		m[num] = append(m[num], v)
	}
	return m
}

// str is the string of field num (its last value), "" if absent.
func (m pbMsg) str(num protowire.Number) string {
	vs := m[num]
	if len(vs) == 0 {
		return ""
	}
	return string(vs[len(vs)-1].([]byte))
}

// strs is every value of a repeated string field.
func (m pbMsg) strs(num protowire.Number) []string {
	var out []string
	for _, v := range m[num] {
		out = append(out, string(v.([]byte)))
	}
	return out
}

// sub is the message in field num (its last value).
func (m pbMsg) sub(t *testing.T, num protowire.Number) pbMsg {
	t.Helper()
	vs := m[num]
	require.NotEmpty(t, vs, "field %d", num)
	return decodePB(t, vs[len(vs)-1].([]byte))
}

// named is the repeated Named<T> field num as a map from name to the
// value message's bytes, and the names in order.
func (m pbMsg) named(t *testing.T, num protowire.Number) (map[string][]byte, []string) {
	t.Helper()
	out := map[string][]byte{}
	var names []string
	for _, v := range m[num] {
		pair := decodePB(t, v.([]byte))
		name := pair.str(1)
		out[name], names = pair[2][0].([]byte), append(names, name)
	}
	return out, names
}

// entry is the value message of the Named<T> named name in field num.
func (m pbMsg) entry(t *testing.T, num protowire.Number, name string) pbMsg {
	t.Helper()
	all, names := m.named(t, num)
	b, ok := all[name]
	require.True(t, ok, "no %q among %d entries of field %d", name, len(names), num)
	return decodePB(t, b)
}

// The field numbers of gnostic's openapi.v2 messages the test reads,
// written out here (not taken from the encoder's tables).
const (
	docSwagger, docInfo, docPaths, docDefinitions, docSecurity, docSecurityDefinitions = 1, 2, 8, 9, 12, 13
	schemaRef, schemaFormat, schemaDescription, schemaDefault, schemaMinimum           = 1, 2, 4, 5, 9
	schemaRequired, schemaEnum, schemaAdditional, schemaType, schemaItems              = 19, 20, 21, 22, 23
	schemaProperties, schemaExtensions, pathsPath, pathItemPatch, pathItemParameters   = 25, 31, 2, 8, 9
	opConsumes, opOperationID, opParameters, opResponses, responsesCode                = 7, 5, 8, 9, 1
)

func TestSwaggerProtoBuiltins(t *testing.T) {
	defs := Builtin()
	docs := map[string][]byte{
		Path("apps", "v1"): GroupVersion("apps", "v1", appsResources, defs),
	}
	js, err := Swagger(docs)
	require.NoError(t, err)
	pb, err := SwaggerProto(js)
	require.NoError(t, err)
	var want struct {
		Paths       map[string]any `json:"paths"`
		Definitions map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal(js, &want))

	d := decodePB(t, pb)
	assert.Equal(t, "2.0", d.str(docSwagger))
	info := d.sub(t, docInfo)
	assert.Equal(t, []string{"Kubernetes", "1.37"}, []string{info.str(1), info.str(2)})

	definitions, names := d.sub(t, docDefinitions).named(t, 1)
	assert.Len(t, definitions, len(want.Definitions), "every definition")
	assert.IsIncreasing(t, names, "in the JSON document's (sorted) order")
	deploy := decodePB(t, definitions["io.k8s.api.apps.v1.Deployment"])
	assert.Equal(t, []string{"object"}, deploy.sub(t, schemaType).strs(1))
	assert.Equal(t, "- group: apps\n  kind: Deployment\n  version: v1\n",
		deploy.entry(t, schemaExtensions, "x-kubernetes-group-version-kind").str(2),
		"an extension is an Any holding its YAML")
	spec := decodePB(t, definitions["io.k8s.api.apps.v1.DeploymentSpec"]).sub(t, schemaProperties)
	replicas := spec.entry(t, 1, "replicas")
	assert.Equal(t, []string{"integer"}, replicas.sub(t, schemaType).strs(1))
	assert.Equal(t, "int32", replicas.str(schemaFormat))
	assert.Equal(t, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector", spec.entry(t, 1, "selector").str(schemaRef))
	assert.Equal(t, "retainKeys\n", spec.entry(t, 1, "strategy").entry(t, schemaExtensions, "x-kubernetes-patch-strategy").str(2))

	paths, _ := d.sub(t, docPaths).named(t, pathsPath)
	assert.Len(t, paths, len(want.Paths), "every path")
	const deployPath = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
	jsItem := want.Paths[deployPath].(map[string]any)
	item := decodePB(t, paths[deployPath])
	assert.Len(t, item[pathItemParameters], len(jsItem["parameters"].([]any)), "the path's parameters")
	patch := item.sub(t, pathItemPatch)
	assert.Equal(t, jsItem["patch"].(map[string]any)["operationId"], patch.str(opOperationID))
	assert.Contains(t, patch.strs(opConsumes), "application/strategic-merge-patch+json")
	// ParametersItem.parameter(1) → Parameter.body_parameter(1) → name(2), schema(5).
	params := patch[opParameters]
	body := decodePB(t, decodePB(t, params[0].([]byte)).sub(t, 1)[1][0].([]byte))
	assert.Equal(t, "body", body.str(2))
	assert.Equal(t, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch", body.sub(t, 5).str(schemaRef))
	// Parameter.non_body_parameter(2) → NonBodyParameter.query(3): name(4), type(6), uniqueItems(20).
	var query []string
	for _, p := range params[1:] {
		q := decodePB(t, decodePB(t, decodePB(t, p.([]byte)).sub(t, 1)[2][0].([]byte))[3][0].([]byte))
		query = append(query, q.str(4))
		if q.str(4) == "fieldValidation" {
			assert.Equal(t, "string", q.str(6))
			assert.Equal(t, []any{uint64(1)}, q[20], "uniqueItems")
		}
	}
	assert.Contains(t, query, "fieldValidation")
	ok := decodePB(t, patch.sub(t, opResponses).entry(t, responsesCode, "200")[1][0].([]byte))
	assert.Equal(t, "OK", ok.str(1))
	assert.Equal(t, "#/definitions/io.k8s.api.apps.v1.Deployment", decodePB(t, ok.sub(t, 2)[1][0].([]byte)).str(schemaRef))

	bearer := d.sub(t, docSecurityDefinitions).entry(t, 1, "BearerToken")
	apiKey := bearer.sub(t, 2)
	assert.Equal(t, []string{"apiKey", "authorization", "header"}, []string{apiKey.str(1), apiKey.str(2), apiKey.str(3)})
	require.Len(t, d[docSecurity], 1)
}

func TestSwaggerProtoSchemaValues(t *testing.T) {
	doc := `{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{},"definitions":{"W":{
		"type":"object","required":["a","b"],"minimum":0.5,"additionalProperties":false,
		"properties":{
			"a":{"type":"string","default":"true","enum":["true",1,1.5,null,{"k":["v"]}]},
			"b":{"type":["integer","string"],"items":[{"type":"string"}],"minimum":0,"x-kubernetes-int-or-string":true},
			"m":{"additionalProperties":{"type":"integer"}}}}}}`
	pb, err := SwaggerProto([]byte(doc))
	require.NoError(t, err)
	w := decodePB(t, pb).sub(t, docDefinitions).entry(t, 1, "W")
	assert.Equal(t, []string{"a", "b"}, w.strs(schemaRequired))
	assert.Equal(t, []any{math.Float64bits(0.5)}, w[schemaMinimum])
	assert.Equal(t, []any{uint64(0)}, w.sub(t, schemaAdditional)[2], "additionalProperties: false is the boolean case, written even when false")
	props := w.sub(t, schemaProperties)
	a := props.entry(t, 1, "a")
	yamlOf := func(b any) string { return decodePB(t, b.([]byte)).str(2) }
	assert.Equal(t, "\"true\"\n", yamlOf(a[schemaDefault][0]), "a string that reads as a boolean is quoted")
	var enum []string
	for _, e := range a[schemaEnum] {
		enum = append(enum, yamlOf(e))
	}
	assert.Equal(t, []string{"\"true\"\n", "1\n", "1.5\n", "null\n", "k:\n    - v\n"}, enum)
	b := props.entry(t, 1, "b")
	assert.Equal(t, []string{"integer", "string"}, b.sub(t, schemaType).strs(1))
	assert.Len(t, b.sub(t, schemaItems)[1], 1, "an items array is a list of schemas")
	assert.Empty(t, b[schemaMinimum], "proto3 leaves out a zero")
	assert.Equal(t, "true\n", b.entry(t, schemaExtensions, "x-kubernetes-int-or-string").str(2))
	m := props.entry(t, 1, "m")
	assert.Equal(t, []string{"integer"}, m.sub(t, schemaAdditional).sub(t, 1).sub(t, schemaType).strs(1))
}

func TestSwaggerProtoRefusesWhatGnosticRefuses(t *testing.T) {
	head := `{"swagger":"2.0","info":{"title":"t","version":"1"},`
	for _, c := range []struct{ doc, want string }{
		{`{`, "openapi v2 document: unexpected EOF"},
		{`[]`, "the document: Document: want an object, not an array"},
		{head + `"definitions":{}}`, `Document: missing required member "paths"`},
		{head + `"paths":{},"definitions":{"W":{"type":"object","anyOf":[{"type":"string"}]}}}`, `definitions.W: Schema: unknown member "anyOf"`},
		{head + `"paths":{},"definitions":{"W":{"properties":{"a":{"maxLength":"3"}}}}}`, `definitions.W.properties.a.maxLength: want an integer, not a string`},
		{head + `"paths":{},"definitions":{"W":{"maxItems":1.5}}}`, `definitions.W.maxItems: want an integer, not a number`},
		{head + `"paths":{"/x":{"get":{"responses":{},"parameters":[{"name":"p","in":"cookie","type":"string"}]}}}}`, `paths./x.get.parameters.0: not a valid NonBodyParameter`},
		{head + `"paths":{"/x":{"get":{}}}}`, `paths./x.get: Operation: missing required member "responses"`},
		{head + `"paths":{"x":{}}}`, `paths: Paths: unknown member "x"`},
	} {
		_, err := SwaggerProto([]byte(c.doc))
		if assert.Error(t, err, c.doc) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// FuzzSwaggerProto: any input is encoded or refused with an error, never
// a panic, and what is encoded is well-formed protobuf.
func FuzzSwaggerProto(f *testing.F) {
	f.Add([]byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"OK","schema":{"type":"file"}}}}}}}`))
	f.Add([]byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{},"definitions":{"a":{"items":[{"enum":[1,{"x":null}]}],"additionalProperties":true}}}`))
	f.Add([]byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{},"securityDefinitions":{"o":{"type":"oauth2","flow":"accessCode","scopes":{"a":"b"}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		pb, err := SwaggerProto(in)
		if err != nil {
			return
		}
		if n := protowire.ConsumeFieldValue(1, protowire.BytesType, protowire.AppendBytes(nil, pb)); n < 0 {
			t.Fatal(fmt.Errorf("malformed: %v", protowire.ParseError(n)))
		}
		decodePB(t, pb)
	})
}

// BenchmarkSwaggerProto encodes /openapi/v2 for every built-in kind, as
// the server does once per registry generation a client asks for it in
// protobuf.
func BenchmarkSwaggerProto(b *testing.B) {
	js, err := Swagger(builtinDocs())
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		out, err := SwaggerProto(js)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(out)))
	}
}
