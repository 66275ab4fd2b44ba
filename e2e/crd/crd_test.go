package crd

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const probeCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: e2eprobes.e2e.kubecache.io}
spec:
  group: e2e.kubecache.io
  names: {plural: e2eprobes, kind: E2EProbe}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: An E2EProbe checks schema keywords.
        properties:
          spec:
            type: object
            description: Spec holds the probed values.
            required: [name]
            x-kubernetes-validations:
            - rule: "!has(self.min) || !has(self.max) || self.min <= self.max"
              message: "min must not exceed max"
            - rule: "!has(self.max) || !has(oldSelf.max) || self.max >= oldSelf.max"
              message: "max may not shrink"
            properties:
              name: {type: string, minLength: 2, maxLength: 5, pattern: '^[a-z]+$', description: Name of the probe.}
              min: {type: integer}
              max: {type: integer}
              count: {type: integer, minimum: 1, maximum: 10}
              x: {type: number, minimum: 0, exclusiveMinimum: true}
              color: {type: string, enum: [red, blue]}
              tags:
                type: array
                maxItems: 2
                items: {type: string, maxLength: 10}
                x-kubernetes-validations:
                - rule: "self.isSorted()"
                  message: unsorted
              set: {type: array, items: {type: string}, x-kubernetes-list-type: set}
              ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [port], items: {type: object, required: [port], properties: {port: {type: integer}, proto: {type: string, default: TCP}}}}
              when: {type: string, format: date-time}
              defs: {type: object, default: {a: 1}, properties: {a: {type: integer}, b: {type: integer, default: 7}}}
              im:
                type: string
                x-kubernetes-validations:
                - rule: "self == oldSelf"
                  message: immutable
`

// notChecked is the cause both servers add when an object with CEL rules
// fails its schema: the rules do not run.
const notChecked = `FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`

const probePath = "/apis/e2e.kubecache.io/v1/namespaces/default/e2eprobes"

func probe(name, spec string) string {
	return `{"apiVersion":"e2e.kubecache.io/v1","kind":"E2EProbe","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

func TestCustomResources(t *testing.T) {
	c := newClient(t)
	installCRD(t, c, probeCRD, probePath)

	t.Run("openapi", func(t *testing.T) {
		var url string
		eventually(t, "the group version in /openapi/v3", func() bool {
			var index struct {
				Paths map[string]struct{ ServerRelativeURL string }
			}
			r := c.do(http.MethodGet, "/openapi/v3", "", "")
			if r.code != http.StatusOK || json.Unmarshal(r.body, &index) != nil {
				return false
			}
			url = index.Paths["apis/e2e.kubecache.io/v1"].ServerRelativeURL
			return url != "" && strings.Contains(string(c.do(http.MethodGet, url, "", "").body), "Spec holds the probed values.")
		})
		r := c.do(http.MethodGet, url, "", "")
		assert.Equal(t, "public, immutable", r.header.Get("Cache-Control"))
		var doc struct {
			Components struct{ Schemas map[string]map[string]any }
		}
		require.NoError(t, json.Unmarshal(r.body, &doc))
		for _, n := range []string{"io.kubecache.e2e.v1.E2EProbe", "io.kubecache.e2e.v1.E2EProbeList", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"} {
			assert.Contains(t, doc.Components.Schemas, n)
		}
		assert.Equal(t, "An E2EProbe checks schema keywords.", doc.Components.Schemas["io.kubecache.e2e.v1.E2EProbe"]["description"])
	})

	t.Run("defaults", func(t *testing.T) {
		r := c.do(http.MethodPost, probePath, probe("d1", `{"name":"ab","ports":[{"port":1}]}`), "")
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
		spec, err := json.Marshal(r.object(t)["spec"])
		require.NoError(t, err)
		assert.JSONEq(t, `{"name":"ab","ports":[{"port":1,"proto":"TCP"}],"defs":{"a":1,"b":7}}`, string(spec))
	})

	t.Run("keywords", func(t *testing.T) {
		r := c.do(http.MethodPost, probePath, probe("bad", `{"name":"A","x":0,"count":11,"color":"green","tags":["a","b","c"],"set":["x","x"],"ports":[{"port":1},{"port":1}],"when":"yesterday"}`), "")
		assert.Equal(t, []string{
			`FieldValueDuplicate spec.ports[1]: Duplicate value: {"port":1}`,
			`FieldValueDuplicate spec.set[1]: Duplicate value: "x"`,
			notChecked,
			`FieldValueInvalid spec.count: Invalid value: 11: spec.count in body should be less than or equal to 10`,
			`FieldValueInvalid spec.name: Invalid value: "A": spec.name in body should be at least 2 chars long`,
			`FieldValueInvalid spec.x: Invalid value: 0: spec.x in body should be greater than 0`,
			`FieldValueNotSupported spec.color: Unsupported value: "green": supported values: "red", "blue"`,
			`FieldValueTooMany spec.tags: Too many: 3: must have at most 2 items`,
			`FieldValueTypeInvalid spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"`,
		}, r.causes(t))
		r = c.do(http.MethodPost, probePath, probe("bad", `{}`), "")
		assert.Equal(t, []string{notChecked, `FieldValueRequired spec.name: Required value`}, r.causes(t))
		r = c.do(http.MethodPost, probePath, probe("bad", `{"name":"ab","count":"x"}`), "")
		assert.Equal(t, []string{notChecked, `FieldValueTypeInvalid spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"`}, r.causes(t))
	})

	t.Run("cel", func(t *testing.T) {
		r := c.do(http.MethodPost, probePath, probe("c1", `{"name":"ab","min":5,"max":3,"tags":["b","a"]}`), "")
		assert.Equal(t, []string{
			`FieldValueInvalid spec.tags: Invalid value: unsorted`,
			`FieldValueInvalid spec: Invalid value: min must not exceed max`,
		}, r.causes(t))
		r = c.do(http.MethodPost, probePath, probe("c2", `{"name":"ab","min":1,"max":3,"im":"x"}`), "")
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
		r = c.do(http.MethodPatch, probePath+"/c2", `{"spec":{"max":2,"im":"y"}}`, "application/merge-patch+json")
		assert.Equal(t, []string{
			`FieldValueInvalid spec.im: Invalid value: "y": immutable`,
			`FieldValueInvalid spec: Invalid value: max may not shrink`,
		}, r.causes(t), "transition rules run on update")
		r = c.do(http.MethodPatch, probePath+"/c2", `{"spec":{"max":4}}`, "application/merge-patch+json")
		assert.Equal(t, http.StatusOK, r.code, "%s", r.body)
	})
}

func TestCustomResourceRuleThatDoesNotCompile(t *testing.T) {
	c := newClient(t)
	crd := toJSON(t, e2eCRD("e2ebrokens", "E2EBroken", `
            x-kubernetes-validations:
            - rule: "self.nosuch == 1"
            properties:
              min: {type: integer}
`))
	r := c.do(http.MethodPost, crdPath, crd, "")
	assert.Equal(t, []string{`FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.nosuch == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'nosuch'
 | self.nosuch == 1
 | ....^`}, r.causes(t))
}

func TestCustomResourceRatcheting(t *testing.T) {
	c := newClient(t)
	loose := strings.Replace(probeCRD, "minLength: 2, maxLength: 5, ", "", 1)
	installCRD(t, c, loose, probePath)
	r := c.do(http.MethodPost, probePath, probe("old", `{"name":"abcdefgh"}`), "")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)

	crd := c.do(http.MethodGet, crdPath+"/e2eprobes.e2e.kubecache.io", "", "").object(t)
	var tight map[string]any
	require.NoError(t, json.Unmarshal([]byte(toJSON(t, probeCRD)), &tight))
	crd["spec"] = tight["spec"]
	body, err := json.Marshal(crd)
	require.NoError(t, err)
	r = c.do(http.MethodPut, crdPath+"/e2eprobes.e2e.kubecache.io", string(body), "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	// The real server switches to the new schema a moment later.
	eventually(t, "the tightened schema", func() bool {
		return c.do(http.MethodPost, probePath, probe("new", `{"name":"abcdefgh"}`), "").code == http.StatusUnprocessableEntity
	})
	r = c.do(http.MethodPatch, probePath+"/old", `{"spec":{"count":2}}`, "application/merge-patch+json")
	assert.Equal(t, http.StatusOK, r.code, "an unchanged invalid value is allowed: %s", r.body)
	r = c.do(http.MethodPatch, probePath+"/old", `{"spec":{"name":"abcdefghi"}}`, "application/merge-patch+json")
	assert.Equal(t, []string{notChecked, `FieldValueTooLong spec.name: Too long: may not be more than 5 bytes`}, r.causes(t))
}
