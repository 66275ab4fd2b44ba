package crd

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCustomResourceRuleTooExpensive: rules whose estimated cost is over
// the limit refuse the CRD, with the factor by which they exceed it.
func TestCustomResourceRuleTooExpensive(t *testing.T) {
	c := newClient(t)
	crd := toJSON(t, e2eCRD("e2ecosts", "E2ECost", `
            properties:
              mid:
                type: array
                maxItems: 1000
                items: {type: string, maxLength: 64}
                x-kubernetes-validations:
                - rule: "self.all(x, self.all(y, x != y))"
              small:
                type: array
                maxItems: 10
                items: {type: string, maxLength: 10}
                x-kubernetes-validations:
                - rule: "self.all(x, self.all(y, x != y))"
`))
	r := c.do(http.MethodPost, crdPath, crd, "")
	assert.Equal(t, []string{"FieldValueForbidden spec.validation.openAPIV3Schema.properties[spec].properties[mid].x-kubernetes-validations[0].rule: " +
		"Forbidden: estimated rule cost exceeds budget by factor of 3.1x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"}, r.causes(t))
}
