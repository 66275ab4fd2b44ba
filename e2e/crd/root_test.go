package crd

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

var rootCRD = e2eRootCRD("e2eroots", "E2ERoot", `
        x-kubernetes-validations:
        - {rule: "self.metadata.name.startsWith('a')", message: name}
        - {rule: "!has(self.metadata.generateName) || self.metadata.generateName == 'a-'", message: generateName}
        - {rule: "size(self.metadata.name) < 10", messageExpression: "'long: ' + self.metadata.name"}
        - {rule: "self.kind == 'E2ERoot' && self.apiVersion == 'e2e.kubecache.io/v1'", message: kind}
        - {rule: "self.metadata.name == oldSelf.metadata.name && (!has(self.spec) || !has(oldSelf.spec) || self.spec.x >= oldSelf.spec.x)", message: shrink}
        properties:
          spec:
            type: object
            properties:
              x: {type: integer}
`)

// TestCustomResourceRootRulesReadMetadata: a rule at the root of a
// custom resource reads self.apiVersion, self.kind, self.metadata.name
// (already generated from generateName) and self.metadata.generateName,
// and nothing else of metadata; its failures are at the field "<nil>".
func TestCustomResourceRootRulesReadMetadata(t *testing.T) {
	c := newClient(t)
	const roots = "/apis/e2e.kubecache.io/v1/namespaces/default/e2eroots"
	installCRD(t, c, rootCRD, roots)
	post := func(md string) response {
		return c.do(http.MethodPost, roots, `{"apiVersion":"e2e.kubecache.io/v1","kind":"E2ERoot","metadata":`+md+`,"spec":{"x":2}}`, "")
	}
	assert.Equal(t, http.StatusCreated, post(`{"name":"abc"}`).code)
	assert.Equal(t, []string{"FieldValueInvalid <nil>: Invalid value: long: abcdefghijkl"}, post(`{"name":"abcdefghijkl"}`).causes(t))
	assert.Equal(t, []string{"FieldValueInvalid <nil>: Invalid value: generateName", "FieldValueInvalid <nil>: Invalid value: name"},
		post(`{"generateName":"x-"}`).causes(t))
	assert.Equal(t, http.StatusCreated, post(`{"generateName":"a-"}`).code)

	r := c.do(http.MethodPut, roots+"/abc", `{"apiVersion":"e2e.kubecache.io/v1","kind":"E2ERoot","metadata":{"name":"abc","resourceVersion":"`+
		c.do(http.MethodGet, roots+"/abc", "", "").object(t)["metadata"].(map[string]any)["resourceVersion"].(string)+`"},"spec":{"x":1}}`, "")
	assert.Equal(t, []string{"FieldValueInvalid <nil>: Invalid value: shrink"}, r.causes(t))

	bad := toJSON(t, e2eRootCRD("e2erootbads", "E2ERootBad", `
        x-kubernetes-validations:
        - rule: "self.metadata.labels.size() > 0"
`))
	assert.Equal(t, []string{"FieldValueInvalid spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: " +
		`{"Rule":"self.metadata.labels.size() \u003e 0","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: ` +
		"compilation failed: ERROR: <input>:1:14: undefined field 'labels'\n | self.metadata.labels.size() > 0\n | .............^"},
		c.do(http.MethodPost, crdPath+"?dryRun=All", bad, "").causes(t))
}
