package openapi

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var appsResources = []Resource{
	{Group: "apps", Version: "v1", Plural: "deployments", Kind: "Deployment", Namespaced: true,
		Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}},
	{Group: "apps", Version: "v1", Plural: "replicasets", Kind: "ReplicaSet", Namespaced: true, Verbs: []string{"get", "list", "patch"}},
}

type doc struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

func decodeDoc(t *testing.T, b []byte) doc {
	var d doc
	require.NoError(t, json.Unmarshal(b, &d))
	return d
}

func TestGroupVersionDocument(t *testing.T) {
	d := decodeDoc(t, GroupVersion("apps", "v1", appsResources, Builtin()))
	item := d.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]
	require.Contains(t, item, "patch")
	var patch struct {
		GVK        map[string]string `json:"x-kubernetes-group-version-kind"`
		Parameters []struct{ Name string }
	}
	require.NoError(t, json.Unmarshal(item["patch"], &patch))
	assert.Equal(t, map[string]string{"group": "apps", "version": "v1", "kind": "Deployment"}, patch.GVK)
	var names []string
	for _, p := range patch.Parameters {
		names = append(names, p.Name)
	}
	assert.Contains(t, names, "fieldValidation", "kubectl then validates on the server")
	assert.Contains(t, names, "fieldManager")
	assert.NotContains(t, d.Paths["/apis/apps/v1/namespaces/{namespace}/replicasets/{name}"], "put", "no update verb, no PUT")

	for _, n := range []string{"io.k8s.api.apps.v1.Deployment", "io.k8s.api.core.v1.PodSpec", "io.k8s.api.core.v1.Container",
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"} {
		_, ok := d.Components.Schemas[n]
		assert.True(t, ok, "the document defines %s", n)
	}
	containers := d.Components.Schemas["io.k8s.api.core.v1.PodSpec"]["properties"].(map[string]any)["containers"].(map[string]any)
	assert.Equal(t, "name", containers["x-kubernetes-patch-merge-key"])
	assert.Equal(t, "merge", containers["x-kubernetes-patch-strategy"])
	assert.Equal(t, map[string]any{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}, containers["items"])
	strategy := d.Components.Schemas["io.k8s.api.apps.v1.DeploymentSpec"]["properties"].(map[string]any)["strategy"].(map[string]any)
	assert.Equal(t, "retainKeys", strategy["x-kubernetes-patch-strategy"])
	assert.Equal(t, []any{map[string]any{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"}}, strategy["allOf"])

	// Every reference resolves inside the document.
	raw := GroupVersion("apps", "v1", appsResources, Builtin())
	for _, m := range regexp.MustCompile(`#/components/schemas/([^"]+)`).FindAllSubmatch(raw, -1) {
		_, ok := d.Components.Schemas[string(m[1])]
		assert.True(t, ok, "%s is defined", m[1])
	}
}

func TestCustomResourceDocument(t *testing.T) {
	d := decodeDoc(t, GroupVersion("example.com", "v1", []Resource{{Group: "example.com", Version: "v1", Plural: "widgets", Kind: "Widget", Namespaced: true, Verbs: []string{"get", "patch"}}}, Builtin()))
	s := d.Components.Schemas["com.example.v1.Widget"]
	require.NotNil(t, s)
	assert.Equal(t, true, s["x-kubernetes-preserve-unknown-fields"])
	assert.Contains(t, d.Components.Schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
	assert.Contains(t, d.Paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"], "patch")
}

func TestIndex(t *testing.T) {
	core := GroupVersion("", "v1", []Resource{{Version: "v1", Plural: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"get"}}}, Builtin())
	var idx struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(Index(map[string][]byte{Path("", "v1"): core}), &idx))
	assert.Equal(t, "/openapi/v3/api/v1?hash="+Hash(core), idx.Paths["api/v1"].ServerRelativeURL)
	assert.Regexp(t, `^[0-9A-F]{128}$`, Hash(core), "the real server's hashes are upper-case SHA-512")
	assert.Equal(t, "apis/apps/v1", Path("apps", "v1"))
}

// TestMatchesRealDocuments compares the rendered definitions with the
// real server's document for apps/v1: the same definitions, with the same
// patch and list extensions on every property.
func TestMatchesRealDocuments(t *testing.T) {
	f, err := os.Open("testdata/real/v3_apis_apps_v1.json.gz")
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	real := decodeDoc(t, raw)
	mine := decodeDoc(t, GroupVersion("apps", "v1", appsResources, Builtin()))
	for name, s := range mine.Components.Schemas {
		rs, ok := real.Components.Schemas[name]
		require.True(t, ok, "%s is a real definition", name)
		props, _ := s["properties"].(map[string]any)
		rprops, _ := rs["properties"].(map[string]any)
		for pn, p := range props {
			rp := rprops[pn].(map[string]any)
			for _, ext := range []string{"x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type"} {
				assert.Equal(t, rp[ext], p.(map[string]any)[ext], "%s.%s %s", name, pn, ext)
			}
		}
	}
	headers, err := os.ReadFile("testdata/real/v3.headers.txt")
	require.NoError(t, err)
	assert.Contains(t, string(headers), "content-type: text/plain; charset=utf-8", "the index is served as text/plain")
}
