package meta

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/jsonlines"
	"github.com/kubecache/kubecache/kubeproto"
)

// protobufFixture is one vector of kubeproto's fixtures, written by the
// real encoders: a protobuf body and the JSON the object it holds is
// written as.
type protobufFixture struct {
	APIVersion, Kind, Mode string
	Proto                  string
	ProtoJSON              string `json:"protoJSON"`
}

// readProtobufFixtures reads every fixture of kubeproto's testdata.
func readProtobufFixtures(t testing.TB) []protobufFixture {
	t.Helper()
	return jsonlines.ReadGzip[protobufFixture](t, filepath.Join("..", "kubeproto", "testdata", "fixtures", "*.jsonl.gz"))
}

// TestDecodeProtobufUnstructuredFixtures decodes the protobuf body of
// every fixture, for every built-in kind the real encoders wrote, into an
// Unstructured, and the JSON the server writes for the same object into
// another: they must be deeply equal (kind and apiVersion, every
// metadata field, the unknown metadata members, the rest byte for byte).
// Each kind with an ObjectMeta goes through the direct decoder, not the
// JSON fallback.
func TestDecodeProtobufUnstructuredFixtures(t *testing.T) {
	fixtures := readProtobufFixtures(t)
	kinds, slow := map[string]bool{}, map[string]bool{}
	for _, fx := range fixtures {
		name := fx.APIVersion + " " + fx.Kind + " " + fx.Mode
		body, err := base64.StdEncoding.DecodeString(fx.Proto)
		require.NoError(t, err, name)
		want, err := Decode[*Unstructured]([]byte(fx.ProtoJSON))
		require.NoError(t, err, name)
		got, err := DecodeProtobufBody[*Unstructured](body)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)

		env, err := kubeproto.ParseEnvelope(body)
		require.NoError(t, err, name)
		p, err := unstructuredPlanFor(env.APIVersion, env.Kind)
		require.NoError(t, err, name)
		kinds[fx.APIVersion+" "+fx.Kind] = true
		if p.slow {
			slow[fx.APIVersion+" "+fx.Kind] = true
			continue
		}
		direct, ok := p.decode(env.APIVersion, env.Kind, env.Raw)
		if assert.True(t, ok, "%s: the direct decoder gave up", name) {
			assert.Equal(t, want, direct, name)
		}
	}
	t.Logf("%d fixtures, %d kinds, %d converted through JSON", len(fixtures), len(kinds), len(slow))
	assert.Greater(t, len(kinds)-len(slow), 200)
	for k := range slow {
		// Lists and Status have a ListMeta for metadata; a
		// CustomResourceDefinition holds schema unions.
		assert.True(t, strings.HasSuffix(k, "List") || k == "v1 Status" || k == "apiextensions.k8s.io/v1 CustomResourceDefinition",
			"%s is converted through JSON", k)
	}
}

// fuzzKinds are the kinds FuzzDecodeProtobufUnstructured decodes its
// input as: a pod, kinds with maps of strings and bytes, a raw JSON value
// (ControllerRevision), microsecond times (events.k8s.io Event), and one
// without metadata (APIGroup).
var fuzzKinds = [...][2]string{
	{"v1", "Pod"}, {"v1", "ConfigMap"}, {"v1", "Secret"}, {"apps/v1", "ControllerRevision"},
	{"events.k8s.io/v1", "Event"}, {"v1", "Service"}, {"v1", "APIGroup"},
}

// FuzzDecodeProtobufUnstructured decodes arbitrary bytes as the message
// of one of fuzzKinds into an Unstructured, by DecodeProtobuf and by the
// direct decoder alone, and compares both with the conversion through
// JSON (kubeproto.DecodeMessage, then UnmarshalJSON): never a panic;
// where the conversion succeeds, DecodeProtobuf succeeds with the same
// object; where the direct decoder does not give up, it gives that
// object too, and the conversion refuses only an output past its bound.
func FuzzDecodeProtobufUnstructured(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("testdata", "pod.json"))
	require.NoError(f, err)
	f.Add(uint8(0), protoOf(f, raw))
	f.Add(uint8(0), []byte{0x0a, 0x02, 0x0a, 0x00})
	f.Add(uint8(0), protoOf(f, []byte(`{"spec":{"priority":0,"containers":[{"name":"c","ports":[{"containerPort":1,"hostPort":0}]}]}}`)))
	for _, fx := range readProtobufFixtures(f) {
		for i, k := range fuzzKinds {
			if fx.APIVersion == k[0] && fx.Kind == k[1] {
				body, err := base64.StdEncoding.DecodeString(fx.Proto)
				require.NoError(f, err)
				env, err := kubeproto.ParseEnvelope(body)
				require.NoError(f, err)
				f.Add(uint8(i), env.Raw)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, msg []byte) {
		k := fuzzKinds[int(which)%len(fuzzKinds)]
		want, werr := convertProtobufUnstructured(k[0], k[1], msg)
		got, err := DecodeProtobuf[*Unstructured](k[0], k[1], msg)
		if werr == nil {
			require.NoError(t, err, "the conversion succeeds")
			assert.Equal(t, want, got)
		}
		p, err := unstructuredPlanFor(k[0], k[1])
		require.NoError(t, err)
		direct, ok := p.decode(k[0], k[1], msg)
		if !ok {
			return
		}
		if werr != nil {
			js, err := direct.MarshalJSON()
			require.NoError(t, err)
			require.Greater(t, len(js), conversionBound(len(msg)),
				"the direct decoder took what the conversion refuses: %v", werr)
			return
		}
		assert.Equal(t, want, direct)
	})
}

// conversionBound is the most kubeproto's conversion writes for a
// message of n bytes.
func conversionBound(n int) int { return 64*n + 1<<20 }
