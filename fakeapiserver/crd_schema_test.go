package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probeCRD exercises every value keyword of structural schemas; the
// expected answers below are a real kube-apiserver v1.37.2's.
var probeCRD = exampleCRD("probes", "Probe", `
            required: [name]
            minProperties: 1
            maxProperties: 12
            properties:
              name: {type: string, minLength: 2, maxLength: 5, pattern: '^[a-z]+$'}
              count: {type: integer, minimum: 1, maximum: 10}
              x: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true}
              mult: {type: integer, multipleOf: 3}
              color: {type: string, enum: [red, blue]}
              tags: {type: array, items: {type: string}, minItems: 1, maxItems: 2}
              set: {type: array, items: {type: string}, x-kubernetes-list-type: set}
              ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [port], items: {type: object, required: [port], properties: {port: {type: integer}, proto: {type: string, default: TCP}}}}
              labels: {type: object, additionalProperties: {type: string, maxLength: 3}, maxProperties: 2}
              when: {type: string, format: date-time}
              uuid: {type: string, format: uuid}
              maybe: {type: string, nullable: true}
              defs: {type: object, default: {a: 1}, properties: {a: {type: integer}, b: {type: integer, default: 7}}}
              items: {type: array, items: {type: object, properties: {k: {type: string, default: kk}}}}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {d: {type: string, default: dd}}}
              emb: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
`)

const probePath = "/apis/example.net/v1/namespaces/default/probes"

func probe(name, spec string) string {
	return `{"apiVersion":"example.net/v1","kind":"Probe","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

// causes returns a 422's causes as "reason field: message", sorted (the
// real server's order follows Go map iteration).
func causes(t *testing.T, r response) []string {
	t.Helper()
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	st := r.status(t)
	var out []string
	for _, c := range st.Details.Causes {
		out = append(out, string(c.Type)+" "+c.Field+": "+c.Message)
	}
	sort.Strings(out)
	return out
}

func TestCustomResourceDefaults(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, yamlToJSON(t, probeCRD))
	obj := c.mustCreate(probePath, probe("ok", `{"name":"ab","ports":[{"port":1}],"items":[{}],"free":{},"defs":null}`))
	spec, err := json.Marshal(obj["spec"])
	require.NoError(t, err)
	assert.JSONEq(t, `{"defs":{"a":1,"b":7},"free":{"d":"dd"},"items":[{"k":"kk"}],"name":"ab","ports":[{"port":1,"proto":"TCP"}]}`, string(spec),
		"defaults inside objects, arrays, map-list items and preserved objects; a null that may not stay takes the default")
	assert.Equal(t, map[string]any{"a": float64(1), "b": float64(7)}, c.get(probePath + "/ok").object(t)["spec"].(map[string]any)["defs"])

	// An update gets them too.
	obj["spec"] = map[string]any{"name": "ab"}
	body, err := json.Marshal(obj)
	require.NoError(t, err)
	r := c.do(http.MethodPut, probePath+"/ok", string(body))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, map[string]any{"a": float64(1), "b": float64(7)}, r.object(t)["spec"].(map[string]any)["defs"])

	// So does a merge patch.
	r = c.do(http.MethodPatch, probePath+"/ok", `{"spec":{"defs":null,"items":[{"k":"x"},{}]}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	got := r.object(t)["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"a": float64(1), "b": float64(7)}, got["defs"])
	assert.Equal(t, []any{map[string]any{"k": "x"}, map[string]any{"k": "kk"}}, got["items"])
}

func TestCustomResourceValueValidation(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, yamlToJSON(t, probeCRD))
	r := c.post(probePath, probe("bad1", `{"name":"A","x":0,"mult":4,"color":"green","tags":["a","a","b"],"set":["x","x"],"ports":[{"port":1},{"port":1}],"labels":{"a":"abcd","b":"c","c":"d"},"when":"yesterday","uuid":"nope","emb":{}}`))
	assert.Equal(t, []string{
		`FieldValueDuplicate spec.ports[1]: Duplicate value: {"port":1}`,
		`FieldValueDuplicate spec.set[1]: Duplicate value: "x"`,
		`FieldValueInvalid spec.mult: Invalid value: 4: spec.mult in body should be a multiple of 3`,
		`FieldValueInvalid spec.name: Invalid value: "A": spec.name in body should be at least 2 chars long`,
		`FieldValueInvalid spec.x: Invalid value: 0: spec.x in body should be greater than 0`,
		`FieldValueNotSupported spec.color: Unsupported value: "green": supported values: "red", "blue"`,
		`FieldValueRequired spec.emb.apiVersion: Required value`,
		`FieldValueRequired spec.emb.kind: Required value`,
		`FieldValueTooLong spec.labels.a: Too long: may not be more than 3 bytes`,
		`FieldValueTooMany spec.labels: Too many: 3: must have at most 2 items`,
		`FieldValueTooMany spec.tags: Too many: 3: must have at most 2 items`,
		`FieldValueTypeInvalid spec.uuid: Invalid value: "nope": spec.uuid in body must be of type uuid: "nope"`,
		`FieldValueTypeInvalid spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"`,
	}, causes(t, r))
	assert.True(t, strings.HasPrefix(r.status(t).Message, `Probe.example.net "bad1" is invalid: [`), r.status(t).Message)

	for _, tc := range []struct{ name, spec, want string }{
		{"required", `{}`, `FieldValueRequired spec.name: Required value`},
		{"pattern", `{"name":"A1b"}`, `FieldValueInvalid spec.name: Invalid value: "A1b": spec.name in body should match '^[a-z]+$'`},
		{"maxLength", `{"name":"abcdefg"}`, `FieldValueTooLong spec.name: Too long: may not be more than 5 bytes`},
		{"exclusiveMaximum", `{"name":"ab","x":1}`, `FieldValueInvalid spec.x: Invalid value: 1: spec.x in body should be less than 1`},
		{"minItems", `{"name":"ab","tags":[]}`, `FieldValueInvalid spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items`},
		{"minimum", `{"name":"ab","count":0}`, `FieldValueInvalid spec.count: Invalid value: 0: spec.count in body should be greater than or equal to 1`},
		{"maximum", `{"name":"ab","count":11}`, `FieldValueInvalid spec.count: Invalid value: 11: spec.count in body should be less than or equal to 10`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, []string{tc.want}, causes(t, c.post(probePath, probe("b", tc.spec))))
		})
	}
	c.mustCreate(probePath, probe("valid", `{"name":"ab","when":"2020-01-01T00:00:00Z","uuid":"8a0c2a2e-3b3c-4e5f-9a1b-2c3d4e5f6a7b","maybe":null,"emb":{"apiVersion":"v1","kind":"Pod"}}`))
}

func TestCustomResourceValidationRatchets(t *testing.T) {
	_, c := newTestServer(t, Options{})
	loose := strings.Replace(probeCRD, "minLength: 2, maxLength: 5, ", "", 1)
	c.mustCreate(crdPath, yamlToJSON(t, loose))
	c.mustCreate(probePath, probe("old", `{"name":"abcdefgh","tags":["a"]}`))

	// The CRD tightens: the stored name is now too long.
	crd := c.get(crdPath + "/probes.example.net").object(t)
	var tight map[string]any
	require.NoError(t, json.Unmarshal([]byte(yamlToJSON(t, probeCRD)), &tight))
	crd["spec"] = tight["spec"]
	body, err := json.Marshal(crd)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, c.do(http.MethodPut, crdPath+"/probes.example.net", string(body)).code)

	// Changing another field keeps the unchanged invalid value.
	r := c.do(http.MethodPatch, probePath+"/old", `{"spec":{"tags":["b"]}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	// Changing the invalid value itself is checked.
	r = c.do(http.MethodPatch, probePath+"/old", `{"spec":{"name":"abcdefghi"}}`, "Content-Type", "application/merge-patch+json")
	assert.Equal(t, []string{`FieldValueTooLong spec.name: Too long: may not be more than 5 bytes`}, causes(t, r))
}
