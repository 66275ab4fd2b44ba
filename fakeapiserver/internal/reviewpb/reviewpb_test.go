package reviewpb

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bodies kubectl v1.32 sent, captured with -v=8.
var (
	canICreatePods = unhex(`6b 38 73 00 0a 32 0a 17 61 75 74 68 6f 72 69 7a
		61 74 69 6f 6e 2e 6b 38 73 2e 69 6f 2f 76 31 12 17 53 65 6c 66 53 75 62 6a 65 63 74 41 63 63 65
		73 73 52 65 76 69 65 77 12 3f 0a 10 0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 21 0a 1f
		0a 07 64 65 66 61 75 6c 74 12 06 63 72 65 61 74 65 1a 00 22 00 2a 04 70 6f 64 73 32 00 3a 00 1a
		08 08 00 12 00 1a 00 20 00 1a 00 22 00`)
	canIGetScale = unhex(`6b 38 73 00 0a 32 0a 17 61 75 74 68 6f 72 69 7a
		61 74 69 6f 6e 2e 6b 38 73 2e 69 6f 2f 76 31 12 17 53 65 6c 66 53 75 62 6a 65 63 74 41 63 63 65
		73 73 52 65 76 69 65 77 12 53 0a 10 0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 35 0a 33
		0a 0b 6b 75 62 65 2d 73 79 73 74 65 6d 12 03 67 65 74 1a 04 61 70 70 73 22 00 2a 0b 64 65 70 6c
		6f 79 6d 65 6e 74 73 32 05 73 63 61 6c 65 3a 03 77 65 62 1a 08 08 00 12 00 1a 00 20 00 1a 00 22
		00`)
	canIList = unhex(`6b 38 73 00 0a 31 0a 17 61 75 74 68 6f 72 69 7a
		61 74 69 6f 6e 2e 6b 38 73 2e 69 6f 2f 76 31 12 16 53 65 6c 66 53 75 62 6a 65 63 74 52 75 6c 65
		73 52 65 76 69 65 77 12 21 0a 10 0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 07 0a 05 6f
		74 68 65 72 1a 04 18 00 22 00 1a 00 22 00`)
	whoami = unhex(`6b 38 73 00 0a 2d 0a 18 61 75 74 68 65 6e 74 69 63 61 74 69 6f 6e 2e 6b
		38 73 2e 69 6f 2f 76 31 12 11 53 65 6c 66 53 75 62 6a 65 63 74 52 65 76 69 65 77 12 1a 0a 10 0a
		00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 06 0a 04 0a 00 12 00 1a 00 22 00`)
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

func TestDecodeKubectlBodies(t *testing.T) {
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"can-i create pods", canICreatePods, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{},
			"spec":{"resourceAttributes":{"namespace":"default","verb":"create","group":"","version":"","resource":"pods","subresource":"","name":""}}}`},
		{"can-i get a subresource by name", canIGetScale, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{},
			"spec":{"resourceAttributes":{"namespace":"kube-system","verb":"get","group":"apps","version":"","resource":"deployments","subresource":"scale","name":"web"}}}`},
		{"can-i --list", canIList, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","metadata":{},"spec":{"namespace":"other"}}`},
		{"whoami", whoami, `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","metadata":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.body)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(got))
			assert.True(t, strings.HasPrefix(string(got), `{"apiVersion":`), "apiVersion first: %s", got)
		})
	}
}

func TestDecodeRejectsBadInput(t *testing.T) {
	cm := append([]byte("k8s\x00"), 0x0a, 0x0f, 0x0a, 0x02, 'v', '1', 0x12, 0x09)
	cm = append(cm, "ConfigMap"...)
	for _, tc := range []struct {
		name string
		body []byte
		want error
		msg  string
	}{
		{"no magic", []byte(`{"kind":"SelfSubjectAccessReview"}`), ErrMalformed, "Kubernetes protobuf prefix"},
		{"truncated envelope", canICreatePods[:40], ErrMalformed, "past the end"},
		{"truncated message", append(append([]byte{}, canICreatePods[:len(canICreatePods)-0x41]...), 0x12, 0x10, 0x0a), ErrMalformed, "past the end"},
		{"overlong varint", append([]byte("k8s\x00"), 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), ErrMalformed, "varint"},
		{"a group", append([]byte("k8s\x00"), 0x0b), ErrMalformed, "wire type 3"},
		{"field zero", append([]byte("k8s\x00"), 0x00, 0x00), ErrMalformed, "field number 0"},
		{"another kind", cm, ErrUnsupportedKind, `"ConfigMap" in "v1"`},
		{"invalid UTF-8", envelope("SelfSubjectRulesReview", lenField(2, lenField(1, []byte{0xff, 0xfe}))), ErrMalformed, "namespace: not valid UTF-8"},
		{"a varint for a string", envelope("SelfSubjectRulesReview", lenField(2, []byte{0x08, 0x01})), ErrMalformed, "namespace: wire type 0"},
		{"a varint for a message", envelope("SelfSubjectRulesReview", []byte{0x10, 0x01}), ErrMalformed, "spec: wire type 0"},
		{"content encoding", append(envelope("SelfSubjectRulesReview", nil), lenField(3, []byte("gzip"))...), ErrMalformed, `content encoding "gzip"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.body)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// envelope wraps raw in the Kubernetes protobuf envelope for an
// authorization.k8s.io/v1 kind.
func envelope(kind string, raw []byte) []byte {
	tm := append(lenField(1, []byte("authorization.k8s.io/v1")), lenField(2, []byte(kind))...)
	return append([]byte("k8s\x00"), append(lenField(1, tm), lenField(2, raw)...)...)
}

// lenField encodes a length-delimited field (payloads under 128 bytes).
func lenField(num int, payload []byte) []byte {
	return append([]byte{byte(num<<3 | wireBytes), byte(len(payload))}, payload...)
}

func TestSupports(t *testing.T) {
	assert.True(t, Supports("authorization.k8s.io/v1", "SelfSubjectAccessReview"))
	assert.True(t, Supports("authentication.k8s.io/v1", "SelfSubjectReview"))
	assert.False(t, Supports("v1", "ConfigMap"))
}

func FuzzDecode(f *testing.F) {
	for _, b := range [][]byte{canICreatePods, canIGetScale, canIList, whoami, []byte("k8s\x00")} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Decode(data)
		if err != nil {
			return
		}
		var obj map[string]any
		if jerr := json.Unmarshal(out, &obj); jerr != nil {
			t.Fatalf("Decode(%x) = %s, not JSON: %v", data, out, jerr)
		}
	})
}
