package fakeapiserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const csrPath = "/apis/certificates.k8s.io/v1/certificatesigningrequests"

// createCSR creates a CertificateSigningRequest name with a fresh key.
func createCSR(t *testing.T, c *testClient, name string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice"}}, key)
	require.NoError(t, err)
	req := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
	c.mustCreate(csrPath, `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"`+name+`"},
		"spec":{"request":"`+req+`","signerName":"example.com/x","usages":["client auth"]}}`)
}

func TestKubectlCertificateApproveDeny(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	createCSR(t, c, "c1")
	createCSR(t, c, "c2")
	assert.Equal(t, "certificatesigningrequest.certificates.k8s.io/c1 approved\n", k.run("certificate", "approve", "c1"))
	assert.Equal(t, "certificatesigningrequest.certificates.k8s.io/c2 denied\n", k.run("certificate", "deny", "c2"))
	_, errOut, err := k.try("certificate", "approve", "c2")
	require.Error(t, err)
	assert.Equal(t, "error: certificate signing request \"c2\" is already Denied\n", errOut)

	conds := dig(c.get(csrPath+"/c1").object(t), "status", "conditions").([]any)
	require.Len(t, conds, 1)
	cond := conds[0].(map[string]any)
	assert.Equal(t, "Approved", cond["type"])
	assert.Equal(t, "True", cond["status"])
	assert.Equal(t, "KubectlApprove", cond["reason"])
	assert.Equal(t, "This CSR was approved by kubectl certificate approve.", cond["message"])
	assert.NotEmpty(t, cond["lastUpdateTime"])
	assert.NotEmpty(t, cond["lastTransitionTime"])
	assert.Contains(t, k.run("get", "csr", "c2", "--no-headers"), "Denied")
}

func TestCSRApprovalSubresource(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCSR(t, c, "c1")
	patch := func(name, body string, headers ...string) response {
		t.Helper()
		return c.do(http.MethodPatch, csrPath+"/"+name+"/approval", body, append([]string{"Content-Type", "application/merge-patch+json"}, headers...)...)
	}
	// Only the conditions change: spec and status.certificate stay.
	r := patch("c1", `{"metadata":{"labels":{"x":"y"}},"spec":{"signerName":"x.com/y"},"status":{"certificate":"AAAA","conditions":[{"type":"Approved","status":"True","reason":"R"}]}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	obj := r.object(t)
	assert.Equal(t, "example.com/x", dig(obj, "spec", "signerName"))
	assert.Nil(t, dig(obj, "status", "certificate"))
	assert.Nil(t, dig(obj, "metadata", "labels"))
	first := dig(obj, "status", "conditions").([]any)[0].(map[string]any)
	assert.NotEmpty(t, first["lastUpdateTime"])

	// The transition time of an unchanged condition is kept.
	r = patch("c1", `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"R2"},{"type":"Failed","status":"True"}]}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	conds := dig(r.object(t), "status", "conditions").([]any)
	require.Len(t, conds, 2)
	assert.Equal(t, first["lastTransitionTime"], conds[0].(map[string]any)["lastTransitionTime"])
	assert.Equal(t, "R2", conds[0].(map[string]any)["reason"])

	for _, tc := range []struct{ name, body, message string }{
		{"c1", `{"status":{"conditions":[{"type":"Approved","status":"True"},{"type":"Failed","status":"True"},{"type":"Denied","status":"True"}]}}`,
			`CertificateSigningRequest.certificates.k8s.io "c1" is invalid: status.conditions: Invalid value: "{conditions[{\"type\": \"Approved\"}], conditions[{\"type\": \"Denied\"}]}": must specify at most one of: ` + "`" + `conditions[{"type": "Approved"}]` + "`, `" + `conditions[{"type": "Denied"}]` + "`"},
		{"c1", `{"status":{"conditions":[]}}`,
			`CertificateSigningRequest.certificates.k8s.io "c1" is invalid: [status.conditions: Forbidden: updates may not remove a condition of type "Approved", status.conditions: Forbidden: updates may not remove a condition of type "Failed"]`},
		{"c1", `{"status":{"conditions":[{"type":"Approved","status":"True"},{"type":"Failed","status":"Unknown"}]}}`,
			`CertificateSigningRequest.certificates.k8s.io "c1" is invalid: status.conditions[1].status: Unsupported value: "Unknown": supported values: "True"`},
		{"c1", `{"status":{"conditions":[{"type":"Approved","status":"True"},{"type":"Failed","status":"True"},{"type":"","status":"True"},{"type":"Failed","status":"True"},{"type":"Other","status":"Maybe"}]}}`,
			`CertificateSigningRequest.certificates.k8s.io "c1" is invalid: [status.conditions[2].type: Required value, status.conditions[3].type: Duplicate value: "Failed", status.conditions[4].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"]`},
	} {
		r := patch(tc.name, tc.body)
		assert.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
		assert.Equal(t, tc.message, r.status(t).Message, tc.body)
	}

	// PUT in protobuf, answered in protobuf.
	createCSR(t, c, "c3")
	cur := c.get(csrPath + "/c3")
	obj = cur.object(t)
	obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Denied", "status": "True", "reason": "No"}}}
	data, err := jsonMarshal(obj)
	require.NoError(t, err)
	r = c.do(http.MethodPut, csrPath+"/c3/approval", protobufBody(t, string(data)), "Content-Type", mediaProtobuf, "Accept", mediaProtobuf)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Contains(t, decodeProtobuf(t, r), `"type":"Denied","status":"True","reason":"No"`)
	assert.Equal(t, http.StatusOK, c.get(csrPath+"/c3/approval").code)
}
