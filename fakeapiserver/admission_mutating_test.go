package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	mutatingPath        = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	mutatingBindingPath = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings"
)

// mutatingPolicy sets a label and a data key with an ApplyConfiguration,
// then annotations with a JSON patch that a failing test operation
// cancels as a whole.
const mutatingPolicy = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"mut"},"spec":{"reinvocationPolicy":"Never",
 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["configmaps"]}]},
 "mutations":[
  {"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {\"mutated\": \"yes\"}}, data: {\"added\": string(object.?data.orValue({}).size())}}"}},
  {"patchType":"JSONPatch","jsonPatch":{"expression":"[JSONPatch{op: \"add\", path: \"/metadata/annotations\", value: {\"k\": \"v\"}}, JSONPatch{op: \"add\", path: \"/metadata/annotations/\" + jsonpatch.escapeKey(\"example.com/k\"), value: \"1\"}, JSONPatch{op: \"test\", path: \"/data/d\", value: \"2\"}, JSONPatch{op: \"add\", path: \"/data/never\", value: \"x\"}]"}}]}}`

// The expected objects and messages are a real kube-apiserver v1.37.2's.
func TestMutatingAdmissionPolicy(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(mutatingPath, mutatingPolicy)
	c.mustCreate(mutatingBindingPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"mut"},"spec":{"policyName":"mut"}}`)

	const cms = "/api/v1/namespaces/default/configmaps"
	o := c.mustCreate(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m1","labels":{"x":"y"}},"data":{"d":"1"}}`)
	md := o["metadata"].(map[string]any)
	assert.Equal(t, map[string]any{"mutated": "yes", "x": "y"}, md["labels"])
	assert.Nil(t, md["annotations"], "the failed test operation cancels the whole patch")
	assert.Equal(t, map[string]any{"added": "1", "d": "1"}, o["data"])

	o = c.mustCreate(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m2","labels":{"x":"y"}},"data":{"d":"2"}}`)
	md = o["metadata"].(map[string]any)
	assert.Equal(t, map[string]any{"example.com/k": "1", "k": "v"}, md["annotations"])
	assert.Equal(t, map[string]any{"added": "1", "d": "2", "never": "x"}, o["data"])
	got := c.get(cms + "/m2").object(t)
	assert.Equal(t, o["data"], got["data"], "stored as mutated")

	// A mutation that fails refuses the request (failurePolicy Fail).
	c.mustCreate(mutatingPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"mut-err"},"spec":{"reinvocationPolicy":"Never",
	 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
	 "matchConditions":[{"name":"only-err","expression":"object.metadata.name.startsWith(\"err\")"}],
	 "mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{data: {\"x\": object.data.nope}}"}}]}}`)
	c.mustCreate(mutatingBindingPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"mut-err"},"spec":{"policyName":"mut-err"}}`)
	r := c.post(cms+"?dryRun=All", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"err1"},"data":{"d":"2"}}`)
	require.Equal(t, http.StatusForbidden, r.code, "%s", r.body)
	st := r.status(t)
	const msg = `policy 'mut-err' with binding 'mut-err' denied request: expression 'Object{data: {"x": object.data.nope}}' resulted in error: no such key: nope`
	assert.Equal(t, msg, st.Message)
	assert.EqualValues(t, "Invalid", st.Reason)
	require.NotNil(t, st.Details)
	assert.Equal(t, "err1", st.Details.Name)
	assert.Equal(t, "configmaps", st.Details.Kind)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, msg, st.Details.Causes[0].Message)

	r = c.post(mutatingPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"mut-bad"},"spec":{"reinvocationPolicy":"Never",
	 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
	 "mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"object"}},{"patchType":"JSONPatch","jsonPatch":{"expression":"[1]"}},{"patchType":"JSONPatch"}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `MutatingAdmissionPolicy.admissionregistration.k8s.io "mut-bad" is invalid: [`+
		`spec.mutations[0].applyConfiguration.expression: Invalid value: "object": must evaluate to Object but got dyn, `+
		`spec.mutations[1].jsonPatch.expression: Invalid value: "[1]": must evaluate to list(JSONPatch) but got list(int), `+
		`spec.mutations[2].jsonPatch: Required value: must be specified when patchType is JSONPatch]`, r.status(t).Message)
	r = c.post(mutatingPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy","metadata":{"name":"mut-noreinv"},"spec":{
	 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
	 "mutations":[{"patchType":"JSONPatch","jsonPatch":{"expression":"[]"}}]}}`)
	assert.Equal(t, `MutatingAdmissionPolicy.admissionregistration.k8s.io "mut-noreinv" is invalid: [spec.mutations[0].jsonPatch.expression: Invalid value: "[]": must evaluate to list(JSONPatch) but got list(dyn), spec.reinvocationPolicy: Required value]`, r.status(t).Message)
}
