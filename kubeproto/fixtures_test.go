package kubeproto

import (
	"encoding/base64"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/jsonlines"
)

// fixture is one vector written from the real encoders (see doc.go): the
// JSON encoding/json writes for an object, the protobuf body the real
// serializer writes for it, and the JSON of the object that body decodes
// to.
type fixture struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Mode       string `json:"mode"`
	JSON       string `json:"json"`
	Proto      string `json:"proto"`
	ProtoJSON  string `json:"protoJSON"`
}

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	return jsonlines.ReadGzip[fixture](t, filepath.Join("testdata", "fixtures", "*.jsonl.gz"))
}

// TestFixturesJSONToProtobuf checks that the JSON of every fixture
// converts to exactly the bytes the real serializer wrote.
func TestFixturesJSONToProtobuf(t *testing.T) {
	kinds := map[GroupVersionKind]bool{}
	for _, fx := range loadFixtures(t) {
		kinds[GroupVersionKind{fx.APIVersion, fx.Kind}] = true
		want, err := base64.StdEncoding.DecodeString(fx.Proto)
		require.NoError(t, err)
		raw, err := EncodeMessage(fx.APIVersion, fx.Kind, []byte(fx.JSON))
		if assert.NoError(t, err, "%s %s %s", fx.APIVersion, fx.Kind, fx.Mode) {
			assert.Equal(t, want, AppendEnvelope(nil, fx.APIVersion, fx.Kind, raw), "EncodeMessage %s %s %s", fx.APIVersion, fx.Kind, fx.Mode)
		}
	}
	for _, k := range Kinds() {
		assert.True(t, kinds[k], "no fixture for %s %s", k.APIVersion, k.Kind)
	}
}

// TestFixturesProtobufToJSON checks that the body of every fixture
// converts to exactly the JSON of the object the real decoder reads.
func TestFixturesProtobufToJSON(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		body, err := base64.StdEncoding.DecodeString(fx.Proto)
		require.NoError(t, err)
		got, err := Decode(body)
		if assert.NoError(t, err, "%s %s %s", fx.APIVersion, fx.Kind, fx.Mode) {
			assert.Equal(t, fx.ProtoJSON, string(got), "Decode %s %s %s", fx.APIVersion, fx.Kind, fx.Mode)
		}
	}
}

// TestFixturesEncodeWithTypeMeta checks Encode, which reads apiVersion
// and kind from the JSON itself.
func TestFixturesEncodeWithTypeMeta(t *testing.T) {
	n := 0
	for _, fx := range loadFixtures(t) {
		if fx.Kind == "WatchEvent" {
			continue // no TypeMeta in its JSON
		}
		want, _ := base64.StdEncoding.DecodeString(fx.Proto)
		got, err := Encode([]byte(fx.JSON))
		if assert.NoError(t, err, "%s %s %s", fx.APIVersion, fx.Kind, fx.Mode) {
			assert.Equal(t, want, got, "Encode %s %s %s", fx.APIVersion, fx.Kind, fx.Mode)
		}
		n++
	}
	assert.Greater(t, n, 300)
}
