package kubeproto

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/scheme"

	"github.com/kubecache/kubecache/kubeproto"
)

var update = flag.Bool("update", false, "write the fixtures into ../../kubeproto/testdata/fixtures")

// protoMessage is what the generated gogo types implement.
type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// newScheme registers every type the fake server serves.
func newScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		kubescheme.AddToScheme, apiextensionsscheme.AddToScheme, aggregatorscheme.AddToScheme, metav1.AddMetaToScheme,
	} {
		require.NoError(t, add(s))
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"})
	return s
}

// fixture is one test vector: the JSON encoding/json writes for an
// object, the protobuf body the real serializer writes for the object
// that JSON decodes to, and the JSON of the object that body decodes to.
type fixture struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Mode       string `json:"mode"`
	JSON       string `json:"json"`
	Proto      string `json:"proto"`
	ProtoJSON  string `json:"protoJSON"`
}

// typeFor returns the Go type registered for (apiVersion, kind).
func typeFor(s *runtime.Scheme, apiVersion, kind string) (reflect.Type, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, false
	}
	if kind == "Status" && apiVersion == "v1" {
		return reflect.TypeFor[metav1.Status](), true
	}
	t, ok := s.KnownTypes(gv)[kind]
	return t, ok
}

// makeFixture builds the vector for one kind and mode with the real
// encoders.
func makeFixture(t *testing.T, typ reflect.Type, apiVersion, kind string, mode fillMode) fixture {
	obj := reflect.New(typ)
	newFiller(mode).fill(obj.Elem(), 0)
	setTypeMeta(obj, apiVersion, kind)
	js, err := json.Marshal(obj.Interface())
	require.NoError(t, err, "json.Marshal %s %s", apiVersion, kind)
	fromJSON := reflect.New(typ)
	require.NoError(t, json.Unmarshal(js, fromJSON.Interface()), "json.Unmarshal %s %s", apiVersion, kind)
	raw, err := fromJSON.Interface().(protoMessage).Marshal()
	require.NoError(t, err, "Marshal %s %s", apiVersion, kind)
	body := envelope(t, apiVersion, kind, raw)
	fromProto := reflect.New(typ)
	require.NoError(t, fromProto.Interface().(protoMessage).Unmarshal(raw))
	setTypeMeta(fromProto, apiVersion, kind)
	protoJSON, err := json.Marshal(fromProto.Interface())
	require.NoError(t, err)
	return fixture{APIVersion: apiVersion, Kind: kind, Mode: string(mode), JSON: string(js),
		Proto: base64.StdEncoding.EncodeToString(body), ProtoJSON: string(protoJSON)}
}

func setTypeMeta(obj reflect.Value, apiVersion, kind string) {
	if tm := obj.Elem().FieldByName("TypeMeta"); tm.IsValid() && tm.Type() == reflect.TypeFor[metav1.TypeMeta]() {
		tm.Set(reflect.ValueOf(metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}))
	}
}

// envelope wraps raw as the real protobuf serializer does.
func envelope(t *testing.T, apiVersion, kind string, raw []byte) []byte {
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw}
	if u.Raw == nil {
		u.Raw = []byte{}
	}
	b, err := u.Marshal()
	require.NoError(t, err)
	return append([]byte("k8s\x00"), b...)
}

// TestCodecMatchesKubernetesTypes converts every kind of the table, in
// every fill mode, both ways and compares with the real encoders.
func TestCodecMatchesKubernetesTypes(t *testing.T) {
	s := newScheme(t)
	byGV := map[string][]fixture{}
	seen := map[reflect.Type]bool{}
	for _, k := range kubeproto.Kinds() {
		typ, ok := typeFor(s, k.APIVersion, k.Kind)
		require.True(t, ok, "the table has %s %s, the scheme does not", k.APIVersion, k.Kind)
		for _, mode := range []fillMode{fillFull, fillEmpty, fillSparse} {
			fx := makeFixture(t, typ, k.APIVersion, k.Kind, mode)
			checkFixture(t, fx)
			if !seen[typ] || mode == fillFull {
				byGV[k.APIVersion] = append(byGV[k.APIVersion], fx)
			}
		}
		seen[typ] = true
	}
	checkTableCoversScheme(t, s)
	n, size := 0, 0
	for _, fxs := range byGV {
		for _, fx := range fxs {
			n++
			size += len(fx.JSON)
		}
	}
	t.Logf("%d kinds, %d vectors kept, %d bytes of JSON", len(kubeproto.Kinds()), n, size)
	if *update {
		writeFixtures(t, byGV)
	}
}

// checkFixture runs the codec on one vector.
func checkFixture(t *testing.T, fx fixture) {
	t.Helper()
	body, err := base64.StdEncoding.DecodeString(fx.Proto)
	require.NoError(t, err)
	got, err := kubeproto.Encode([]byte(fx.JSON))
	if !strings.Contains(fx.JSON, `"kind":`) {
		// A kind without TypeMeta (WatchEvent): the body names it in
		// the envelope only.
		var raw []byte
		if raw, err = kubeproto.EncodeMessage(fx.APIVersion, fx.Kind, []byte(fx.JSON)); err == nil {
			got = kubeproto.AppendEnvelope(nil, fx.APIVersion, fx.Kind, raw)
		}
	}
	if assert.NoError(t, err, "Encode %s %s %s", fx.APIVersion, fx.Kind, fx.Mode) {
		assert.Equal(t, body, got, "Encode %s %s %s", fx.APIVersion, fx.Kind, fx.Mode)
	}
	gotJSON, err := kubeproto.Decode(body)
	if assert.NoError(t, err, "Decode %s %s %s", fx.APIVersion, fx.Kind, fx.Mode) {
		assert.Equal(t, fx.ProtoJSON, string(gotJSON), "Decode %s %s %s", fx.APIVersion, fx.Kind, fx.Mode)
	}
}

// checkTableCoversScheme fails when a group/version of the table has a
// protobuf kind in the scheme that the table lacks.
func checkTableCoversScheme(t *testing.T, s *runtime.Scheme) {
	inTable := map[kubeproto.GroupVersionKind]bool{}
	gvs := map[string]bool{}
	for _, k := range kubeproto.Kinds() {
		inTable[k] = true
		gvs[k.APIVersion] = true
	}
	for gv := range gvs {
		parsed, _ := schema.ParseGroupVersion(gv)
		for kind, typ := range s.KnownTypes(parsed) {
			if _, ok := reflect.New(typ).Interface().(protoMessage); !ok {
				continue
			}
			assert.True(t, inTable[kubeproto.GroupVersionKind{APIVersion: gv, Kind: kind}], "%s %s is in the scheme, not in the table (run go generate ./kubeproto)", gv, kind)
		}
	}
}

// writeFixtures writes one gzipped JSON-lines file per group/version.
func writeFixtures(t *testing.T, byGV map[string][]fixture) {
	dir := filepath.Join("..", "..", "kubeproto", "testdata", "fixtures")
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	gvs := make([]string, 0, len(byGV))
	for gv := range byGV {
		gvs = append(gvs, gv)
	}
	slices.Sort(gvs)
	for _, gv := range gvs {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		enc := json.NewEncoder(zw)
		for _, fx := range byGV[gv] {
			require.NoError(t, enc.Encode(fx))
		}
		require.NoError(t, zw.Close())
		name := strings.NewReplacer("/", "_").Replace(gv) + ".jsonl.gz"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644))
	}
	fmt.Fprintf(os.Stderr, "wrote fixtures for %d group/versions into %s\n", len(gvs), dir)
}
