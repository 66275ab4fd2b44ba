package rest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fuzz targets of an exec credential plugin's output: what a plugin
// prints is read as network input (a plugin relays what an identity
// provider answered), so parsing it must never panic, every error must
// name what was wrong, and no error may carry the credential.

// execParseTemplates is the fixed text of parse's errors: a token found
// in it is not a leak.
const execParseTemplates = `exec plugin "p": output is not an ExecCredential: output kind is want ExecCredential
output apiVersion is output has no status status has only one of clientCertificateData and clientKeyData
client certificate: status has neither a token nor a client certificate client.authentication.k8s.io/v1`

// fuzzExecAuth is the execAuth the targets parse with.
func fuzzExecAuth() *execAuth {
	return &execAuth{cfg: ExecConfig{Command: "p", APIVersion: ExecAPIVersionV1}}
}

// checkParsed checks the contract of parse's result: an error names the
// plugin; a credential has a token or a certificate.
func checkParsed(t *testing.T, cred *execCred, err error) {
	if err != nil {
		assert.Nil(t, cred)
		assert.True(t, strings.HasPrefix(err.Error(), `exec plugin "p": `), "the error names the plugin: %v", err)
		return
	}
	require.NotNil(t, cred)
	assert.True(t, cred.token != "" || cred.cert != nil, "a credential with neither a token nor a certificate")
}

// FuzzExecCredential parses arbitrary plugin output. When the output is
// an ExecCredential whose token appears in it once and nowhere else, the
// error must not contain the token.
func FuzzExecCredential(f *testing.F) {
	p := getPKI(f)
	for _, s := range []string{
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-0123456789abcdef"}}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-0123456789abcdef","expirationTimestamp":"2030-01-01T00:00:00Z"}}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-0123456789abcdef","expirationTimestamp":"soon"}}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-0123456789abcdef","expirationTimestamp":5}}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"tok-0123456789abcdef"}}`,
		`{"kind":"Secret","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-0123456789abcdef"}}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-0123456789abcdef","clientKeyData":"k"}}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":5}}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-0123\q"}}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":"tok-0123456789abcdef"}`,
		`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-0123456789abcdef"}} trailing`,
		`{"kind":"ExecCredential","status":{"token":"tok-0123456789abcdef"`,
		`[]`, `null`, ``, `{}`, `"tok-0123456789abcdef"`,
	} {
		f.Add([]byte(s))
	}
	cert, _ := json.Marshal(map[string]any{"kind": "ExecCredential", "apiVersion": ExecAPIVersionV1,
		"status": map[string]string{"clientCertificateData": string(p.clientCert), "clientKeyData": string(p.clientKey)}})
	f.Add(cert)
	f.Fuzz(func(t *testing.T, out []byte) {
		cred, err := fuzzExecAuth().parse(out)
		checkParsed(t, cred, err)
		if err == nil {
			return
		}
		var doc struct {
			Status struct {
				Token string `json:"token"`
			} `json:"status"`
		}
		if json.Unmarshal(out, &doc) != nil {
			// Not JSON as a whole: find a token only where a valid
			// document would have one.
			return
		}
		tok := doc.Status.Token
		if len(tok) < 12 || strings.Count(string(out), tok) != 1 || strings.Contains(execParseTemplates, tok) {
			return
		}
		assert.NotContains(t, err.Error(), tok, "the error carries the token")
	})
}

// FuzzExecCredentialFields builds an ExecCredential from fuzzed fields,
// with a token and a client key no fuzzer can guess, and checks that no
// error ever carries either, whatever the other fields hold.
func FuzzExecCredentialFields(f *testing.F) {
	p := getPKI(f)
	f.Add(ExecAPIVersionV1, "ExecCredential", "tok", "2030-01-01T00:00:00Z", "", "", false)
	f.Add(ExecAPIVersionV1, "ExecCredential", "tok", "", "", "", false)
	f.Add(ExecAPIVersionV1beta1, "ExecCredential", "tok", "", "", "", false)
	f.Add("client.authentication.k8s.io/v9", "ExecCredential", "tok", "", "", "", false)
	f.Add(ExecAPIVersionV1, "Other", "tok", "", "", "", false)
	f.Add(ExecAPIVersionV1, "ExecCredential", "tok", "yesterday", "", "", false)
	f.Add(ExecAPIVersionV1, "ExecCredential", "", "", string(p.clientCert), "", true)
	f.Add(ExecAPIVersionV1, "ExecCredential", "", "", string(p.clientCert), "-----BEGIN EC PRIVATE KEY-----\n", true)
	f.Add(ExecAPIVersionV1, "ExecCredential", "", "", "not a certificate", "", true)
	f.Add(ExecAPIVersionV1, "ExecCredential", "", "", "", "", true)
	f.Fuzz(func(t *testing.T, apiVersion, kind, token, expiry, cert, key string, withKey bool) {
		secret := randomSecret(t)
		status := map[string]string{}
		if token != "" {
			status["token"] = token + secret
		}
		if expiry != "" {
			status["expirationTimestamp"] = expiry
		}
		if cert != "" {
			status["clientCertificateData"] = cert
		}
		keyText := ""
		if withKey {
			// The fuzzer's key bytes, then a real key, then a secret:
			// none of it may appear in an error.
			keyText = key + string(p.clientKey) + "\n# " + secret
			status["clientKeyData"] = keyText
		}
		out, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind, "status": status})
		require.NoError(t, err)
		cred, err := fuzzExecAuth().parse(out)
		checkParsed(t, cred, err)
		if err != nil {
			assert.NotContains(t, err.Error(), secret, "the error carries the credential")
			if withKey && !strings.Contains(apiVersion+kind+expiry+cert, keyMaterial(p.clientKey)) {
				assert.NotContains(t, err.Error(), keyMaterial(p.clientKey), "the error carries the client key")
			}
			return
		}
		if token != "" && utf8.ValidString(token) {
			// (JSON carries invalid UTF-8 as U+FFFD.)
			assert.Equal(t, token+secret, cred.token)
		}
	})
}

// randomSecret is 16 random hex digits.
func randomSecret(t *testing.T) string {
	var b [8]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	return "s3cr3t" + hex.EncodeToString(b[:])
}

// keyMaterial is the second line of a PEM key: base64 of the key itself.
func keyMaterial(pemKey []byte) string {
	lines := strings.Split(string(pemKey), "\n")
	return lines[1]
}
