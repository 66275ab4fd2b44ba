package crd

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

const (
	mapPath        = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	mapBindingPath = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings"
)

// TestMutatingAdmissionPolicies: an ApplyConfiguration that merges into a
// Deployment's containers by name and sets a label, and a JSON patch,
// scoped to the test's namespace; the stored objects are compared.
func TestMutatingAdmissionPolicies(t *testing.T) {
	c := newClient(t)
	ns := target.Get(t).Namespace(t)
	policy := target.NewName("map")
	createCleaned(t, c, mapPath, policy, toJSON(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: `+policy+`}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"mutated": "yes"}},
        spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{
        containers: [Object.spec.template.spec.containers{name: "b", imagePullPolicy: "Always"}]}}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {"example.com/replicas": string(object.spec.replicas)}}]
`))
	createCleaned(t, c, mapBindingPath, policy, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"`+policy+`"},"spec":{"policyName":"`+policy+`",
	 "matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"`+ns+`"}}}}}`)
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},
	 "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"a","image":"nginx:1.25"},{"name":"b","image":"busybox:1.36"}]}}}}`
	var obj map[string]any
	eventually(t, "the binding", func() bool {
		r := c.do(http.MethodPost, "/apis/apps/v1/namespaces/"+ns+"/deployments?dryRun=All", deploy, "")
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
		obj = r.object(t)
		md, _ := obj["metadata"].(map[string]any)
		return md["labels"] != nil
	})
	md := obj["metadata"].(map[string]any)
	assert.Equal(t, map[string]any{"mutated": "yes"}, md["labels"])
	assert.Equal(t, map[string]any{"example.com/replicas": "2"}, md["annotations"])
	spec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	var pulls []any
	for _, ctr := range spec["containers"].([]any) {
		m := ctr.(map[string]any)
		pulls = append(pulls, []any{m["name"], m["image"], m["imagePullPolicy"]})
	}
	assert.Equal(t, []any{[]any{"a", "nginx:1.25", "IfNotPresent"}, []any{"b", "busybox:1.36", "Always"}}, pulls,
		"b merged by name, a left to its default")
}
