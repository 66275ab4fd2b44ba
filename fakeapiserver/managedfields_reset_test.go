package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// managedEntries is an object's managedFields as manager, operation and
// fields, nil when it has none.
func managedEntries(t *testing.T, r response) []string {
	t.Helper()
	require.Less(t, r.code, 300, "%s", r.body)
	var obj struct {
		Metadata struct {
			ManagedFields []struct {
				Manager, Operation string
				FieldsV1           json.RawMessage
			}
		}
	}
	require.NoError(t, json.Unmarshal(r.body, &obj))
	var out []string
	for _, e := range obj.Metadata.ManagedFields {
		var fields bytes.Buffer
		require.NoError(t, json.Compact(&fields, e.FieldsV1))
		out = append(out, e.Manager+" "+e.Operation+" "+fields.String())
	}
	return out
}

// TestManagedFieldsReset: the answers of a real kube-apiserver v1.37.2.
// A write that carries an empty managedFields list, or a list of one
// empty entry, clears them; an object without managedFields gets none
// from later updates (nor from a status write), until an apply records
// the fields it holds under before-first-apply; from then on updates are
// tracked again.
func TestManagedFieldsReset(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	merge := func(path, body string) response {
		return c.do(http.MethodPatch, path, body, "Content-Type", "application/merge-patch+json", "User-Agent", "curl/8")
	}
	c.mustCreate(cms, `{"metadata":{"name":"m1"},"data":{"a":"b"}}`)
	assert.Nil(t, managedEntries(t, merge(cms+"/m1", `{"metadata":{"managedFields":[{}]}}`)))
	assert.Nil(t, managedEntries(t, merge(cms+"/m1", `{"metadata":{"labels":{"x":"y"}}}`)))

	c.mustCreate(cms, `{"metadata":{"name":"m2"},"data":{"a":"b"}}`)
	cur := c.get(cms + "/m2").object(t)
	cur["metadata"].(map[string]any)["managedFields"] = []any{}
	cur["data"].(map[string]any)["c"] = "d"
	body, err := json.Marshal(cur)
	require.NoError(t, err)
	assert.Nil(t, managedEntries(t, c.do(http.MethodPut, cms+"/m2", string(body), "User-Agent", "curl/8")))
	applied := c.do(http.MethodPatch, cms+"/m2?fieldManager=me", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m2"},"data":{"e":"f"}}`,
		"Content-Type", "application/apply-patch+yaml")
	assert.Equal(t, []string{`me Apply {"f:data":{"f:e":{}}}`, `before-first-apply Update {"f:data":{".":{},"f:a":{},"f:c":{}}}`}, managedEntries(t, applied))
	assert.Equal(t, []string{`me Apply {"f:data":{"f:e":{}}}`, `before-first-apply Update {"f:data":{".":{},"f:a":{},"f:c":{}}}`, `curl Update {"f:data":{"f:g":{}}}`},
		managedEntries(t, merge(cms+"/m2", `{"data":{"g":"h"}}`)))
}

// TestCertificateSigningRequestManagedFields: a CSR's spec and status
// are the server's to set, so no write to the main resource owns them: a
// create records nothing, so later updates and the approval record
// nothing either, until an apply (kube-apiserver v1.37.2's answers).
func TestCertificateSigningRequestManagedFields(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const csrs = csrPath
	createCSR(t, c, "c1")
	assert.Nil(t, managedEntries(t, c.get(csrs+"/c1")))
	merge := func(path, body string) response {
		return c.do(http.MethodPatch, path, body, "Content-Type", "application/merge-patch+json", "User-Agent", "curl/8")
	}
	assert.Nil(t, managedEntries(t, merge(csrs+"/c1", `{"metadata":{"labels":{"a":"b"}}}`)))
	assert.Nil(t, managedEntries(t, merge(csrs+"/c1/approval", `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","message":"m"}]}}`)))
	applied := c.do(http.MethodPatch, csrs+"/c1?fieldManager=me", `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"c1","annotations":{"x":"y"}}}`,
		"Content-Type", "application/apply-patch+yaml")
	assert.Equal(t, []string{`me Apply {"f:metadata":{"f:annotations":{"f:x":{}}}}`, `before-first-apply Update {"f:metadata":{"f:labels":{".":{},"f:a":{}}}}`}, managedEntries(t, applied))
	assert.Equal(t, []string{`me Apply {"f:metadata":{"f:annotations":{"f:x":{}}}}`, `before-first-apply Update {"f:metadata":{"f:labels":{".":{},"f:a":{}}}}`, `curl Update {"f:metadata":{"f:labels":{"f:c":{}}}}`},
		managedEntries(t, merge(csrs+"/c1", `{"metadata":{"labels":{"c":"d"}}}`)))
}
