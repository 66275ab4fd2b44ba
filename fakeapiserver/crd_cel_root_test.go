package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rootRulesCRD's root rules read the object's name, generateName and kind.
const rootRulesCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"roots.example.net"},"spec":{"group":"example.net","names":{"plural":"roots","kind":"Root"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
"x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('a')","message":"name"},{"rule":"!has(self.metadata.generateName) || self.metadata.generateName == 'a-'","message":"generateName"},{"rule":"self.kind == 'Root' && self.apiVersion == 'example.net/v1'","message":"kind"}],
"properties":{"spec":{"type":"object","properties":{"x":{"type":"integer"}}}}}}}]}}`

// The answers are a real kube-apiserver v1.37.2's: a root failure is at
// the field "<nil>", and the name is generated before the rules run.
func TestCustomResourceRootRules(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, rootRulesCRD)
	const roots = "/apis/example.net/v1/namespaces/default/roots"
	c.mustCreate(roots, `{"apiVersion":"example.net/v1","kind":"Root","metadata":{"generateName":"a-"}}`)
	r := c.post(roots, `{"apiVersion":"example.net/v1","kind":"Root","metadata":{"generateName":"x-"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	var got []string
	for _, cause := range r.status(t).Details.Causes {
		got = append(got, cause.Field+": "+cause.Message)
	}
	assert.ElementsMatch(t, []string{"<nil>: Invalid value: name", "<nil>: Invalid value: generateName"}, got)
}
