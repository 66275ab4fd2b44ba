package fakeapiserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/discovery"
)

const realDiscovery = "../e2e/testdata/real/discovery"

// TestDiscoveryMatchesRealServer compares every discovery document with the
// one captured from a real kube-apiserver v1.37.2.
func TestDiscoveryMatchesRealServer(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realDiscovery, "*.json"))
	require.NoError(t, err)
	if len(files) == 0 {
		t.Skip("no captured discovery documents in " + realDiscovery)
	}
	_, c := newTestServer(t, Options{})
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		var path, accept string
		switch {
		case base == "aggregated_api":
			path, accept = "/api", discovery.MediaAggregated
		case base == "aggregated_apis":
			path, accept = "/apis", discovery.MediaAggregated
		case base == "api" || base == "apis":
			path = "/" + base
		case strings.HasPrefix(base, "api_"):
			path = "/api/" + strings.TrimPrefix(base, "api_")
		default:
			parts := strings.Split(strings.TrimPrefix(base, "apis_"), "_")
			path = "/apis/" + strings.Join(parts, "/")
		}
		t.Run(base, func(t *testing.T) {
			want, err := os.ReadFile(f)
			require.NoError(t, err)
			var hdr []string
			if accept != "" {
				hdr = []string{"Accept", accept + ",application/json"}
			}
			r := c.get(path, hdr...)
			require.Equal(t, 200, r.code, "%s", r.body)
			if accept != "" {
				assert.Equal(t, discovery.MediaAggregated, r.header.Get("Content-Type"))
			}
			var w, g any
			require.NoError(t, json.Unmarshal(want, &w))
			require.NoError(t, json.Unmarshal(r.body, &g))
			if base == "api" {
				// The address is the server's own.
				w.(map[string]any)["serverAddressByClientCIDRs"] = nil
				g.(map[string]any)["serverAddressByClientCIDRs"] = nil
			}
			assert.Equal(t, w, g)
		})
	}
}

func TestVersionMatchesRealServer(t *testing.T) {
	want, err := os.ReadFile("../e2e/testdata/real/version.json")
	if err != nil {
		t.Skip("no captured /version")
	}
	_, c := newTestServer(t, Options{})
	r := c.get("/version")
	var w, g map[string]any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(r.body, &g))
	delete(w, "goVersion")
	delete(g, "goVersion")
	assert.Equal(t, w, g)
	assert.True(t, strings.HasPrefix(string(r.body), "{\n  \"major\": \"1\",\n  \"minor\": \"37\",\n"), "field order, indented for every client as the real server does")
}

func TestOpenAPIDocuments(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.get("/openapi/v3")
	require.Equal(t, 200, r.code)
	assert.Equal(t, "text/plain; charset=utf-8", r.header.Get("Content-Type"))
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(r.body, &index))
	apps, ok := index.Paths["apis/apps/v1"]
	require.True(t, ok)
	assert.Contains(t, apps.URL, "/openapi/v3/apis/apps/v1?hash=")
	doc := c.get(strings.Split(apps.URL, "?")[0])
	require.Equal(t, 200, doc.code)
	assert.Contains(t, string(doc.body), `"x-kubernetes-group-version-kind"`)
	assert.Contains(t, string(doc.body), `"fieldValidation"`)
	assert.Contains(t, string(doc.body), `"x-kubernetes-patch-merge-key"`)
	assert.Equal(t, 404, c.get("/openapi/v3/apis/nope/v1").code)
}
