package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/meta"
)

// registrySet lists, per case, the members of the real server's answer
// that are left to the server (a Service's allocated addresses, the
// namespace finalizer).
var registrySet = map[string][]string{
	"service":              {"spec.clusterIP", "spec.clusterIPs", "spec.ipFamilies", "spec.ipFamilyPolicy"},
	"service-clientip":     {"spec.clusterIP", "spec.clusterIPs", "spec.ipFamilies", "spec.ipFamilyPolicy"},
	"service-loadbalancer": {"spec.clusterIP", "spec.clusterIPs", "spec.ipFamilies", "spec.ipFamilyPolicy", "spec.ports.nodePort"},
}

// TestDefaultMatchesRealServer defaults, prepares (PrepareCreate) and
// completes each
// testdata/defaults/*.in.json and compares it with what a real
// kube-apiserver v1.37.2 (e2e/realserver.sh) answered to a POST of the same
// body with dryRun=All, saved as it came (*.real.json). Metadata is
// compared by its labels only.
func TestDefaultMatchesRealServer(t *testing.T) {
	ins, err := filepath.Glob("testdata/defaults/*.in.json")
	require.NoError(t, err)
	require.NotEmpty(t, ins)
	defs := openapi.Builtin()
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		t.Run(name, func(t *testing.T) {
			m, obj, gvk := load(t, in)
			def, _, ok := defs.ForKind(gvk)
			require.True(t, ok, "schema of %v", gvk)
			wantMeta, want, _ := load(t, strings.TrimSuffix(in, ".in.json")+".real.json")
			m.UID = wantMeta.UID
			Default(gvk.Group, gvk.Version, gvk.Kind, m, &obj)
			require.NoError(t, PrepareCreate(gvk.Group, gvk.Kind, m, &obj, Env{Now: wantMeta.CreationTimestamp.Time}))
			Complete(defs, def, &obj)

			for _, path := range registrySet[name] {
				drop(&want, strings.Split(path, "."))
				drop(&obj, strings.Split(path, "."))
			}
			assert.JSONEq(t, string(jsonv.Marshal(want)), string(jsonv.Marshal(obj)))
			if gvk.Kind != "Namespace" {
				assert.Equal(t, wantMeta.Labels, m.Labels, "labels")
			}
			assert.Equal(t, wantMeta.Finalizers, m.Finalizers, "finalizers")
		})
	}
}

// load reads an object file into its metadata and its other members.
func load(t *testing.T, path string) (*meta.ObjectMeta, jsonv.Value, openapi.GVK) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return loadBytes(t, data)
}

// loadBytes splits an object into its metadata and its other members.
func loadBytes(t *testing.T, data []byte) (*meta.ObjectMeta, jsonv.Value, openapi.GVK) {
	t.Helper()
	res, err := jsonv.Parse(data)
	require.NoError(t, err)
	doc := res.Value
	m := &meta.ObjectMeta{}
	var gvk openapi.GVK
	obj := jsonv.NewObject()
	for _, mem := range doc.Obj {
		switch mem.Key {
		case "metadata":
			require.NoError(t, json.Unmarshal(jsonv.Marshal(mem.Value), m))
		case "kind":
			gvk.Kind = mem.Value.Str
		case "apiVersion":
			if g, v, ok := strings.Cut(mem.Value.Str, "/"); ok {
				gvk.Group, gvk.Version = g, v
			} else {
				gvk.Version = mem.Value.Str
			}
		default:
			obj.Obj = append(obj.Obj, mem)
		}
	}
	return m, obj, gvk
}

// drop removes the member at path, looking through lists.
func drop(v *jsonv.Value, path []string) {
	switch v.Kind {
	case jsonv.Array:
		for i := range v.Arr {
			drop(&v.Arr[i], path)
		}
	case jsonv.Object:
		if len(path) == 1 {
			v.Delete(path[0])
			return
		}
		if c := v.Get(path[0]); c != nil {
			drop(c, path[1:])
		}
	}
}
