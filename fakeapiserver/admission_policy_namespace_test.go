package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidatingAdmissionPolicyNamespaceObject evaluates a policy that
// reads the typed namespaceObject: its labels, status and name, and a
// label the namespace lacks (the real server's "no such key").
func TestValidatingAdmissionPolicyNamespaceObject(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"prod","labels":{"env":"prod"}}}`)
	c.mustCreate(policiesPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"nsp"},"spec":{
	 "matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
	 "validations":[{"expression":"!has(namespaceObject.metadata.labels) || namespaceObject.metadata.labels['env'] != 'prod' || namespaceObject.status.phase != 'Active'",
	  "messageExpression":"'no configmaps in ' + namespaceObject.metadata.name"}]}}`)
	c.mustCreate(bindingsPath, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"nsp"},"spec":{"policyName":"nsp","validationActions":["Deny"]}}`)

	r := c.post("/api/v1/namespaces/prod/configmaps?dryRun=All", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `configmaps "a" is forbidden: ValidatingAdmissionPolicy 'nsp' with binding 'nsp' denied request: no configmaps in prod`, r.status(t).Message)

	r = c.post("/api/v1/namespaces/default/configmaps?dryRun=All", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `configmaps "a" is forbidden: ValidatingAdmissionPolicy 'nsp' with binding 'nsp' denied request: expression '!has(namespaceObject.metadata.labels) || namespaceObject.metadata.labels['env'] != 'prod' || namespaceObject.status.phase != 'Active'' resulted in error: no such key: env`, r.status(t).Message)
}
