package fakeapiserver

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

const (
	policiesPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	bindingsPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
)

// limitsPolicy takes its maximum from a ConfigMap param, skips objects
// labelled skip, and refuses to delete objects labelled keep.
const limitsPolicy = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"limits"},"spec":{
 "paramKind":{"apiVersion":"v1","kind":"ConfigMap"},
 "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE","DELETE"],"resources":["deployments"]}]},
 "matchConditions":[{"name":"not-skipped","expression":"!has(object.metadata.labels) || !(\"skip\" in object.metadata.labels)"}],
 "validations":[
  {"expression":"request.operation == \"DELETE\" || object.spec.replicas <= int(params.data.max)","messageExpression":"\"replicas \" + string(object.spec.replicas) + \" over \" + params.data.max + \" (\" + request.operation + \")\""},
  {"expression":"request.operation != \"DELETE\" || !(\"keep\" in oldObject.metadata.labels)","message":"kept"}]}}`

func deployment(ns, name string, replicas int, labels string) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `","namespace":"` + ns + `","labels":` + labels + `},"spec":{"replicas":` +
		strconv.Itoa(replicas) + `,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
}

func warningsOf(r response) []string { return r.header.Values("Warning") }

// The expected answers below are a real kube-apiserver v1.37.2's.
func TestValidatingAdmissionPolicyParamsWarnAndDeny(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(policiesPath, limitsPolicy)
	c.mustCreate("/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"limits"},"data":{"max":"3"}}`)
	c.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}`)
	c.mustCreate(bindingsPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"limits-warn"},"spec":{
	 "policyName":"limits","validationActions":["Warn","Audit"],"paramRef":{"name":"limits","namespace":"default","parameterNotFoundAction":"Deny"}}}`)

	const warn = `299 - "Validation failed for ValidatingAdmissionPolicy 'limits' with binding 'limits-warn': replicas 5 over 3 (CREATE)"`
	r := c.post("/apis/apps/v1/namespaces/default/deployments?dryRun=All", deployment("default", "d1", 5, `{"keep":"y"}`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, []string{warn}, warningsOf(r))

	c.mustCreate(bindingsPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"limits-deny"},"spec":{
	 "policyName":"limits","validationActions":["Deny"],"paramRef":{"name":"limits","parameterNotFoundAction":"Deny"},
	 "matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"default"}}}}}`)
	r = c.post("/apis/apps/v1/namespaces/default/deployments", deployment("default", "d1", 5, `{"keep":"y"}`))
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, []string{warn}, warningsOf(r))
	st := r.status(t)
	const denied = "ValidatingAdmissionPolicy 'limits' with binding 'limits-deny' denied request: replicas 5 over 3 (CREATE)"
	assert.Equal(t, `deployments.apps "d1" is forbidden: `+denied, st.Message)
	assert.EqualValues(t, "Invalid", st.Reason)
	require.NotNil(t, st.Details)
	assert.Equal(t, "d1", st.Details.Name)
	assert.Equal(t, "apps", st.Details.Group)
	assert.Equal(t, "deployments", st.Details.Kind)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, denied, st.Details.Causes[0].Message)

	// The deny binding selects namespace default only; in another
	// namespace the warn binding's params still come from default.
	r = c.post("/apis/apps/v1/namespaces/other/deployments", deployment("other", "d1", 5, `{"keep":"y"}`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, []string{warn}, warningsOf(r))

	// A match condition that is false skips the policy.
	r = c.post("/apis/apps/v1/namespaces/default/deployments", deployment("default", "skipped", 5, `{"skip":"y"}`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Empty(t, warningsOf(r))

	r = c.post("/apis/apps/v1/namespaces/default/deployments", deployment("default", "d1", 2, `{"keep":"y"}`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Empty(t, warningsOf(r))

	// On DELETE object is null: the match condition fails with the real
	// error, which denies (failurePolicy Fail) and warns.
	const condErr = `expression '!has(object.metadata.labels) || !("skip" in object.metadata.labels)' resulted in error: no such key: metadata`
	r = c.do(http.MethodDelete, "/apis/apps/v1/namespaces/default/deployments/d1", "")
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `deployments.apps "d1" is forbidden: ValidatingAdmissionPolicy 'limits' with binding 'limits-deny' denied request: `+condErr, r.status(t).Message)
	assert.Equal(t, []string{`299 - "Validation failed for ValidatingAdmissionPolicy 'limits' with binding 'limits-warn': expression '!has(object.metadata.labels) || !(\"skip\" in object.metadata.labels)' resulted in error: no such key: metadata"`}, warningsOf(r))
	r = c.do(http.MethodDelete, "/apis/apps/v1/namespaces/other/deployments/d1", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
}

func TestValidatingAdmissionPolicyMessages(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(policiesPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"cm"},"spec":{
	 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["configmaps"]}]},
	 "variables":[{"name":"foo","expression":"object.data.?foo.orValue(\"\")"}],
	 "validations":[
	  {"expression":"variables.foo != \"bad\"","message":"foo must not be bad"},
	  {"expression":"!has(object.data.bar) || object.data.bar != \"x\"","messageExpression":"\"bar is \" + object.data.bar","reason":"Forbidden"},
	  {"expression":"object.metadata.name != \"forbidden-name\""}]}}`)
	c.mustCreate(bindingsPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"cm-deny"},"spec":{"policyName":"cm","validationActions":["Deny"]}}`)

	const cms = "/api/v1/namespaces/default/configmaps"
	r := c.post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"foo":"bad"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `configmaps "a" is forbidden: ValidatingAdmissionPolicy 'cm' with binding 'cm-deny' denied request: foo must not be bad`, r.status(t).Message)
	assert.Empty(t, r.status(t).Details.Group)

	r = c.post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"g-"},"data":{"bar":"x"}}`)
	require.Equal(t, http.StatusForbidden, r.code, "%s", r.body)
	st := r.status(t)
	assert.EqualValues(t, "Forbidden", st.Reason)
	assert.Regexp(t, `^configmaps "g-[a-z0-9]{5}" is forbidden: ValidatingAdmissionPolicy 'cm' with binding 'cm-deny' denied request: bar is x$`, st.Message)

	r = c.post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"forbidden-name"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `configmaps "forbidden-name" is forbidden: ValidatingAdmissionPolicy 'cm' with binding 'cm-deny' denied request: expression 'variables.foo != "bad"' resulted in error: composited variable "foo" fails to evaluate: no such key: data`, r.status(t).Message)

	r = c.post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ok"},"data":{"foo":"good"}}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	r = c.do(http.MethodPut, cms+"/ok", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ok"},"data":{"foo":"bad"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `configmaps "ok" is forbidden: ValidatingAdmissionPolicy 'cm' with binding 'cm-deny' denied request: foo must not be bad`, r.status(t).Message)
}

func TestValidatingAdmissionPolicyWriteChecks(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.post(policiesPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"bad"},"spec":{
	 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
	 "matchConditions":[{"name":"m","expression":"object.foo"}],
	 "validations":[{"expression":"object.data.x"},{"expression":"undefined.x == 1"},{"expression":"1 == 1","messageExpression":"1"},{"expression":"variables.nope == 1"}],
	 "auditAnnotations":[{"key":"k","valueExpression":"1"}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad" is invalid: [`+
		`spec.matchConditions[0].expression: Invalid value: "object.foo": must evaluate to bool but got dyn, `+
		`spec.validations[0].expression: Invalid value: "object.data.x": must evaluate to bool but got dyn, `+
		"spec.validations[1].expression: Invalid value: \"undefined.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'undefined' (in container '')\n | undefined.x == 1\n | ^, "+
		`spec.validations[2].messageExpression: Invalid value: "1": must evaluate to string but got int, `+
		"spec.validations[3].expression: Invalid value: \"variables.nope == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.nope == 1\n | ^, "+
		`spec.auditAnnotations[0].valueExpression: Invalid value: "1": must evaluate to one of [string null_type] but got int]`, r.status(t).Message)

	r = c.post(policiesPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"bad2"},"spec":{
	 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
	 "variables":[{"name":"a","expression":"1"}],
	 "validations":[{"expression":"variables.nope == 1"},{"expression":"variables.a == \"x\""}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad2" is invalid: [`+
		"spec.validations[0].expression: Invalid value: \"variables.nope == 1\": compilation failed: ERROR: <input>:1:10: undefined field 'nope'\n | variables.nope == 1\n | .........^, "+
		"spec.validations[1].expression: Invalid value: \"variables.a == \\\"x\\\"\": compilation failed: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(int, string)'\n | variables.a == \"x\"\n | ............^]", r.status(t).Message)

	r = c.post(policiesPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"bad3"},"spec":{}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad3" is invalid: [spec.matchConstraints: Required value, spec.validations: Required value: validations or auditAnnotations must contain at least one item, spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item]`, r.status(t).Message)

	r = c.post(bindingsPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"b3"},"spec":{}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b3" is invalid: [spec.policyName: Required value, spec.validationActions: Required value]`, r.status(t).Message)
	r = c.post(bindingsPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"b4"},"spec":{"policyName":"x","validationActions":["Deny","Warn","Foo"],"paramRef":{"name":"a"}}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b4" is invalid: [spec.paramRef.parameterNotFoundAction: Required value, spec.validationActions[2]: Unsupported value: "Foo": supported values: "Audit", "Deny", "Warn", spec.validationActions: Invalid value: ["Deny","Warn","Foo"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)]`, r.status(t).Message)
}

// The authorizer variables answer with the server's Forbid rules, for
// the request's user or another one.
func TestValidatingAdmissionPolicyAuthorizer(t *testing.T) {
	_, c := newTestServer(t, Options{
		Tokens: map[string]User{"admin-token": {Name: "admin"}, "dev-token": {Name: "dev"}},
		Forbid: []ForbidRule{{User: "dev", Match: request.Match{Verb: "delete", Resource: "secrets"}}},
	})
	admin := []string{"Authorization", "Bearer admin-token"}
	r := c.post(policiesPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"authz"},"spec":{
	 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
	 "validations":[
	  {"expression":"authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('delete').allowed()","messageExpression":"request.userInfo.username + ' may not delete secrets'"},
	  {"expression":"authorizer.requestResource.check('create').allowed()"}]}}`, admin...)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	r = c.post(bindingsPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"authz"},"spec":{"policyName":"authz","validationActions":["Deny"]}}`, admin...)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)

	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default"}}`
	r = c.post("/api/v1/namespaces/default/configmaps", cm, "Authorization", "Bearer dev-token")
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `configmaps "a" is forbidden: ValidatingAdmissionPolicy 'authz' with binding 'authz' denied request: dev may not delete secrets`, r.status(t).Message)
	r = c.post("/api/v1/namespaces/default/configmaps", cm, admin...)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
}
