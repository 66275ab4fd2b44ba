package builtin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// TestCSRRequestIsParsed checks that a signed PEM certificate request
// passes and that a request whose signature does not match is refused
// with the parser's words.
func TestCSRRequestIsParsed(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "bot"}}, key)
	require.NoError(t, err)
	csr := func(der []byte) jsonv.Value {
		pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
		obj := jsonv.NewObject()
		spec := jsonv.NewObject()
		spec.Set("request", jsonv.NewString(base64.StdEncoding.EncodeToString(pemBytes)))
		spec.Set("signerName", jsonv.NewString("example.com/bots"))
		spec.Set("usages", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{jsonv.NewString("client auth")}})
		obj.Set("spec", spec)
		return obj
	}
	good := csr(der)
	assert.Empty(t, Validate("certificates.k8s.io", "CertificateSigningRequest", &meta.ObjectMeta{Name: "c"}, &good))

	tampered := append([]byte(nil), der...)
	tampered[len(tampered)-1] ^= 0xff
	bad := csr(tampered)
	errs := Validate("certificates.k8s.io", "CertificateSigningRequest", &meta.ObjectMeta{Name: "c"}, &bad)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.request", errs[0].Field)
	assert.Equal(t, meta.CauseFieldValueInvalid, errs[0].Type)
}
