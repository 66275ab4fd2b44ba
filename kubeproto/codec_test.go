package kubeproto

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const configMapJSON = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"5","creationTimestamp":"2024-01-02T03:04:05Z","labels":{"z":"1","a":"2"}},"data":{"k":"v"}}`

func TestEncodeDecodeConfigMap(t *testing.T) {
	body, err := Encode([]byte(configMapJSON))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(body, Magic))
	env, err := ParseEnvelope(body)
	require.NoError(t, err)
	assert.Equal(t, "v1", env.APIVersion)
	assert.Equal(t, "ConfigMap", env.Kind)
	got, err := Decode(body)
	require.NoError(t, err)
	// Labels come back in key order, as encoding/json writes a map.
	assert.Equal(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"5","creationTimestamp":"2024-01-02T03:04:05Z","labels":{"a":"2","z":"1"}},"data":{"k":"v"}}`, string(got))
}

func TestEncodeErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not JSON", `{"kind":`, "unexpected end of JSON input"},
		{"trailing garbage", configMapJSON + `x`, "after top-level value"},
		{"unknown kind", `{"kind":"Widget","apiVersion":"example.com/v1"}`, "no protobuf message for this kind"},
		{"wrong group version", `{"kind":"ConfigMap","apiVersion":"apps/v1"}`, "no protobuf message for this kind"},
		{"wrong type", `{"kind":"ConfigMap","apiVersion":"v1","data":[]}`, "cannot unmarshal array into Go struct field ConfigMap.data of type map"},
		{"int overflow", `{"kind":"Deployment","apiVersion":"apps/v1","spec":{"replicas":4294967296}}`, "cannot unmarshal number 4294967296"},
		{"bad quantity", `{"kind":"ResourceQuota","apiVersion":"v1","spec":{"hard":{"cpu":"1kk"}}}`, "unable to parse quantity's suffix"},
		{"bad time", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"creationTimestamp":"yesterday"}}`, "cannot parse"},
		{"deep nesting", strings.Repeat("[", 2000) + strings.Repeat("]", 2000), "exceeded max depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Encode([]byte(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := Encode([]byte(`{"kind":"Widget","apiVersion":"example.com/v1"}`))
	assert.ErrorIs(t, err, ErrUnknownKind)
}

// nestedSchema builds a CustomResourceDefinition whose schema nests
// depth levels of properties.
func nestedSchema(depth int) string {
	return `{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":` +
		strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth) + `}}]}}`
}

func TestDepthBound(t *testing.T) {
	body, err := Encode([]byte(nestedSchema(20)))
	require.NoError(t, err)
	_, err = Decode(body)
	require.NoError(t, err)
	_, err = Encode([]byte(nestedSchema(120)))
	require.ErrorContains(t, err, "exceeded max depth")
}

func TestDecodeErrors(t *testing.T) {
	good, err := Encode([]byte(configMapJSON))
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"no magic", []byte("{}"), "does not appear to be a protobuf message"},
		{"empty", nil, "empty data"},
		{"unknown kind", AppendEnvelope(nil, "example.com/v1", "Widget", nil), "no protobuf message for this kind"},
		{"length past the end", append(append([]byte{}, Magic...), 0x12, 0x7f, 1, 2), "unexpected EOF"},
		{"truncated varint", append(append([]byte{}, Magic...), 0x0a, 0x80), "unexpected EOF"},
		{"illegal wire type", append(append([]byte{}, Magic...), "garbage"...), "proto: illegal wireType 7"},
		{"wrong wire type", AppendEnvelope(nil, "v1", "ConfigMap", []byte{0x0a >> 3 << 3, 1}), "wrong wireType = 0 for field metadata"},
		{"field zero", AppendEnvelope(nil, "v1", "ConfigMap", []byte{0x00, 1}), "proto: illegal tag 0 (wire type 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	for n := range len(good) - 1 {
		_, err := Decode(good[:n])
		// Cutting right after typeMeta (an envelope without raw) or
		// dropping the empty trailing fields still parses.
		if n > len(Magic)+17 && n < len(good)-4 {
			assert.Error(t, err, "truncated at %d of %d: %x", n, len(good), good)
		}
	}
}

func TestOutputBound(t *testing.T) {
	// An empty Pod is two bytes of protobuf and some fifty of JSON: a
	// list of 65,536 of them converts within the bound.
	var items []byte
	for range 1 << 16 {
		items = append(items, 0x12, 0)
	}
	body := AppendEnvelope(nil, "v1", "PodList", items)
	out, err := Decode(body)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(out), outputLimit(len(items)))
	assert.True(t, strings.HasPrefix(string(out), `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{},"spec":{"containers":null},"status":{}},`), string(out[:200]))

	// Past the bound, the conversion stops with an error.
	d := decoder{limit: 1000}
	m, err := lookup("v1", "PodList")
	require.NoError(t, err)
	assert.ErrorIs(t, d.message(m, items, true), errTooLarge)
}

func TestWatchFrame(t *testing.T) {
	obj, err := Encode([]byte(configMapJSON))
	require.NoError(t, err)
	var stream []byte
	stream = AppendWatchFrame(stream, "ADDED", obj)
	stream = AppendWatchFrame(stream, "BOOKMARK", obj)
	r := bytes.NewReader(stream)
	frame, err := ReadFrame(r, MaxFrameSize)
	require.NoError(t, err)
	assert.Equal(t, uint32(len(frame)), binary.BigEndian.Uint32(stream))
	line, err := DecodeWatchEvent(frame)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(line), `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1",`), string(line))
	frame, err = ReadFrame(r, MaxFrameSize)
	require.NoError(t, err)
	typ, body, err := ParseWatchEvent(frame)
	require.NoError(t, err)
	assert.Equal(t, "BOOKMARK", typ)
	assert.Equal(t, obj, body)
	_, err = ReadFrame(r, MaxFrameSize)
	assert.Equal(t, io.EOF, err)

	_, err = ReadFrame(bytes.NewReader(stream[:10]), MaxFrameSize)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, err = ReadFrame(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff}), 1<<20)
	assert.ErrorContains(t, err, "exceeds the limit")
}

func TestCanonicalQuantity(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "1000": "1k", "0.5": "500m", "1.5Ki": "1536", "+1": "+1", "01": "01", "1024Ki": "1Mi",
		"1e3": "1e3", "1.5e3": "1500", "0.0000000001": "1n", "1000E": "1", "9223372036854775807Ki": "9223372036854775807", "8Ei": "9223372036854775807", "4Ei": "4Ei",
	} {
		got, err := canonicalQuantity(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, "canonicalQuantity(%q)", in)
		}
	}
	for _, in := range []string{"", "1x", "abc", "1.2.3"} {
		_, err := canonicalQuantity(in)
		assert.Error(t, err, in)
	}
}
