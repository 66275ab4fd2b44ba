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
