package fakeapiserver

import (
	"net/http"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// costCRD's rules are too expensive for the real server's estimate:
// quadratic on unbounded and bounded lists, linear in a list of 3,000
// unbounded strings, and a string rule under an unbounded list.
const costCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"costs.example.net"},"spec":{"group":"example.net","names":{"plural":"costs","kind":"Cost"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{
"tags":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x != y))"}]},
"small":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":10},"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x != y))"}]},
"mid":{"type":"array","maxItems":1000,"items":{"type":"string","maxLength":64},"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x != y))"}]},
"names":{"type":"array","maxItems":3000,"items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(x, x.matches('^a'))"}]},
"list":{"type":"array","items":{"type":"object","properties":{"s":{"type":"string","x-kubernetes-validations":[{"rule":"self.contains('x')"}]}}}}
}}}}}}]}}`

// The causes are a real kube-apiserver v1.37.2's (it orders them as Go
// map iteration does: compared as a set).
func TestCustomResourceRuleCost(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.post(crdPath, costCRD)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	const (
		base  = "spec.validation.openAPIV3Schema"
		rule  = ".x-kubernetes-validations[0].rule"
		hint  = " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
		part  = "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
		over  = "Forbidden: estimated rule cost exceeds budget by factor of "
		props = base + ".properties[spec].properties"
	)
	want := []string{
		props + "[names]" + rule + ": " + over + "94.4x" + hint,
		props + "[list].items.properties[s]" + rule + ": " + over + "more than 100x" + hint,
		props + "[tags]" + rule + ": " + over + "more than 100x" + hint,
		props + "[mid]" + rule + ": " + over + "3.1x" + hint,
		props + "[tags]" + rule + ": " + part,
		props + "[list].items.properties[s]" + rule + ": " + part,
		props + "[names]" + rule + ": " + part,
		props + "[mid]" + rule + ": " + part,
		base + ": Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x" + hint,
	}
	var got []string
	for _, cause := range r.status(t).Details.Causes {
		got = append(got, cause.Field+": "+cause.Message)
	}
	sort.Strings(want)
	sort.Strings(got)
	assert.Equal(t, want, got)
}
