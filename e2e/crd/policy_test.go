package crd

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

const (
	vapPath     = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	bindingPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
)

// createCleaned creates an object at collection and deletes it when the
// test ends.
func createCleaned(t *testing.T, c *client, collection, name, body string) {
	t.Helper()
	r := c.do(http.MethodPost, collection, body, "")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	t.Cleanup(func() {
		req, err := http.NewRequest(http.MethodDelete, c.base+collection+"/"+name, nil)
		if err == nil {
			if resp, err := c.http.Do(req); err == nil {
				_ = resp.Body.Close()
			}
		}
	})
}

type policyStatus struct {
	Message string
	Reason  string
	Code    int
	Details struct {
		Name, Group, Kind string
		Causes            []struct{ Message string }
	}
}

// TestValidatingAdmissionPolicies runs a policy with a Deny binding, one
// with a Warn binding and one with params from a ConfigMap, scoped to the
// test's namespace. A real server applies a new binding a moment after
// it is written: each row waits until the binding takes effect.
func TestValidatingAdmissionPolicies(t *testing.T) {
	c := newClient(t)
	ns := target.Get(t).Namespace(t)
	policy := target.NewName("vap")
	createCleaned(t, c, vapPath, policy, toJSON(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: `+policy+`}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  matchConditions:
  - {name: not-params, expression: "object.metadata.name != 'limits'"}
  variables:
  - {name: keys, expression: "has(object.data) ? object.data.size() : 0"}
  validations:
  - expression: "!has(object.data) || !('forbidden' in object.data)"
    message: no forbidden key
  - expression: "params == null || variables.keys <= int(params.data.max)"
    messageExpression: "'too many keys: ' + string(variables.keys) + ' > ' + params.data.max"
    reason: Forbidden
`))
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	createCleaned(t, c, cms, "limits", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"limits"},"data":{"max":"2"}}`)
	binding := func(name, action string, params bool) string {
		ref := ""
		if params {
			ref = `"paramRef":{"name":"limits","parameterNotFoundAction":"Allow"},`
		}
		return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"` + name + `"},"spec":{"policyName":"` + policy + `",` + ref +
			`"validationActions":["` + action + `"],"matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"` + ns + `"}}}}}`
	}
	bad := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},"data":{"forbidden":"x"}}`
	many := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"many"},"data":{"a":"1","b":"2","c":"3"}}`
	dryRun := cms + "?dryRun=All"

	warnName := policy + "-warn"
	createCleaned(t, c, bindingPath, warnName, binding(warnName, "Warn", false))
	var r response
	eventually(t, "the Warn binding", func() bool {
		r = c.do(http.MethodPost, dryRun, bad, "")
		return len(r.header.Values("Warning")) > 0
	})
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, []string{`299 - "Validation failed for ValidatingAdmissionPolicy '` + policy + `' with binding '` + warnName + `': no forbidden key"`}, r.header.Values("Warning"))
	r = c.do(http.MethodPost, dryRun, many, "")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Empty(t, r.header.Values("Warning"), "without paramRef, params is null")

	denyName := policy + "-deny"
	createCleaned(t, c, bindingPath, denyName, binding(denyName, "Deny", true))
	eventually(t, "the Deny binding", func() bool {
		r = c.do(http.MethodPost, dryRun, bad, "")
		return r.code != http.StatusCreated
	})
	st := statusOf(t, r)
	msg := "ValidatingAdmissionPolicy '" + policy + "' with binding '" + denyName + "' denied request: no forbidden key"
	assert.Equal(t, http.StatusUnprocessableEntity, st.Code)
	assert.Equal(t, "Invalid", st.Reason)
	assert.Equal(t, `configmaps "bad" is forbidden: `+msg, st.Message)
	assert.Equal(t, "bad", st.Details.Name)
	assert.Equal(t, "configmaps", st.Details.Kind)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, msg, st.Details.Causes[0].Message)

	r = c.do(http.MethodPost, dryRun, many, "")
	st = statusOf(t, r)
	assert.Equal(t, http.StatusForbidden, st.Code)
	assert.Equal(t, "Forbidden", st.Reason)
	assert.Equal(t, `configmaps "many" is forbidden: ValidatingAdmissionPolicy '`+policy+`' with binding '`+denyName+`' denied request: too many keys: 3 > 2`, st.Message)

	r = c.do(http.MethodPost, dryRun, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fine"},"data":{"a":"1"}}`, "")
	assert.Equal(t, http.StatusCreated, r.code, "%s", r.body)
}

// TestValidatingAdmissionPolicyThatDoesNotCompile: the policy is refused
// with the compiler's words.
func TestValidatingAdmissionPolicyThatDoesNotCompile(t *testing.T) {
	c := newClient(t)
	name := target.NewName("vap-bad")
	r := c.do(http.MethodPost, vapPath, toJSON(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: `+name+`}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "object.data.x"
  - expression: "nope == 1"
`), "")
	assert.Equal(t, []string{
		"FieldValueInvalid spec.validations[0].expression: Invalid value: \"object.data.x\": must evaluate to bool but got dyn",
		"FieldValueInvalid spec.validations[1].expression: Invalid value: \"nope == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope == 1\n | ^",
	}, r.causes(t))
}

func statusOf(t *testing.T, r response) policyStatus {
	t.Helper()
	var st policyStatus
	require.NoError(t, json.Unmarshal(r.body, &st), "%s", r.body)
	return st
}
