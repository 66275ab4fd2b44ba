package rest

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveFile writes the file at path, or the real server's 404 Status
// when there is none.
func serveFile(w http.ResponseWriter, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(statusBody(404, "NotFound", "the server could not find the requested resource", "")))
		return
	}
	w.Write(b)
}

// discoveryServer serves the discovery documents in testdata/discovery:
// aggregated (v2) when aggregated is true and the client asks for it,
// the legacy documents otherwise. metrics.k8s.io, listed by the legacy
// /apis, is down (503), as an unavailable aggregated API server is.
func discoveryServer(t *testing.T, aggregated bool) (url string, requests *atomic.Int32) {
	t.Helper()
	requests = new(atomic.Int32)
	dir := filepath.Join("testdata", "discovery")
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		name := ""
		switch p := r.URL.Path; {
		case aggregated && strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList") && (p == "/api" || p == "/apis"):
			w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
			name = "aggregated-" + strings.TrimPrefix(p, "/") + ".json"
		case p == "/apis/metrics.k8s.io/v1beta1":
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("service unavailable"))
			return
		default:
			w.Header().Set("Content-Type", "application/json")
			name = "legacy-" + strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "-") + ".json"
		}
		serveFile(w, filepath.Join(dir, name))
	}))
	return srv.URL, requests
}

func TestDiscoverAndResolve(t *testing.T) {
	for _, aggregated := range []bool{true, false} {
		name := map[bool]string{true: "aggregated", false: "legacy"}[aggregated]
		t.Run(name, func(t *testing.T) {
			url, requests := discoveryServer(t, aggregated)
			c := newTestClient(t, &Config{Host: url})
			d, err := c.Discover(t.Context())
			require.NoError(t, err)
			if aggregated {
				assert.Equal(t, int32(2), requests.Load(), "aggregated discovery is two requests")
				assert.Empty(t, d.Failed)
			} else {
				require.Contains(t, d.Failed, "metrics.k8s.io/v1beta1")
				assert.True(t, IsServiceUnavailable(d.Failed["metrics.k8s.io/v1beta1"]))
			}
			assert.Equal(t, "v1", d.PreferredVersion(""))
			assert.Equal(t, "v2", d.PreferredVersion("example.com"))

			tests := []struct {
				word                     string
				group, version, resource string
				kind                     string
				namespaced               bool
			}{
				{"pods", "", "v1", "pods", "Pod", true},
				{"pod", "", "v1", "pods", "Pod", true},
				{"po", "", "v1", "pods", "Pod", true},
				{"Pod", "", "v1", "pods", "Pod", true},
				{"PODS", "", "v1", "pods", "Pod", true},
				{"ns", "", "v1", "namespaces", "Namespace", false},
				{"deployments", "apps", "v1", "deployments", "Deployment", true},
				{"deploy", "apps", "v1", "deployments", "Deployment", true},
				{"Deployment", "apps", "v1", "deployments", "Deployment", true},
				{"deployments.apps", "apps", "v1", "deployments", "Deployment", true},
				{"deployment.apps", "apps", "v1", "deployments", "Deployment", true},
				{"Deployment.apps", "apps", "v1", "deployments", "Deployment", true},
				{"deployments.v1.apps", "apps", "v1", "deployments", "Deployment", true},
				{"events", "", "v1", "events", "Event", true},
				{"ev", "", "v1", "events", "Event", true},
				{"events.events.k8s.io", "events.k8s.io", "v1", "events", "Event", true},
				{"clusterroles", "rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false},
				{"widgets", "example.com", "v2", "widgets", "Widget", true},
				{"wd", "example.com", "v2", "widgets", "Widget", true},
				{"widget", "example.com", "v2", "widgets", "Widget", true},
				{"widgets.example.com", "example.com", "v2", "widgets", "Widget", true},
				{"widgets.v1.example.com", "example.com", "v1", "widgets", "Widget", true},
			}
			for _, tt := range tests {
				r, err := d.Resolve(tt.word)
				if !assert.NoError(t, err, "Resolve(%q)", tt.word) {
					continue
				}
				assert.Equal(t, tt.group, r.Group, "Resolve(%q).Group", tt.word)
				assert.Equal(t, tt.version, r.Version, "Resolve(%q).Version", tt.word)
				assert.Equal(t, tt.resource, r.Resource, "Resolve(%q).Resource", tt.word)
				assert.Equal(t, tt.kind, r.Kind, "Resolve(%q).Kind", tt.word)
				assert.Equal(t, tt.namespaced, r.Namespaced, "Resolve(%q).Namespaced", tt.word)
			}

			for _, word := range []string{"foo", "", "pods.nope", "deployments.v9.apps", "status", "log", "pods/log", "Scale", "scale"} {
				_, err := d.Resolve(word)
				assert.EqualError(t, err, `the server doesn't have a resource type "`+word+`"`)
				assert.ErrorIs(t, err, ErrUnknownResource)
				var ure *UnknownResourceError
				assert.True(t, errors.As(err, &ure))
			}

			pods, err := d.Resolve("pods")
			require.NoError(t, err)
			assert.Equal(t, []string{"log", "status"}, pods.Subresources)
			assert.Equal(t, "pods", pods.GroupResource())
			assert.Equal(t, "v1", pods.APIVersion())
			deploy, err := d.ForKind("apps/v1", "Deployment")
			require.NoError(t, err)
			assert.Equal(t, "deployments.apps", deploy.GroupResource())
			assert.Equal(t, "apps/v1", deploy.APIVersion())
			assert.Equal(t, []string{"scale", "status"}, deploy.Subresources)
			cm, err := d.ForKind("v1", "ConfigMap")
			require.NoError(t, err)
			assert.Equal(t, "configmaps", cm.Resource)
			_, err = d.ForKind("apps/v1", "Pod")
			assert.ErrorIs(t, err, ErrUnknownResource)

			assert.Equal(t, "/apis/apps/v1/namespaces/ns/deployments/web",
				c.Get().For(deploy).Namespace("ns").Name("web").URL().Path)
			assert.Equal(t, "/api/v1/pods", c.Get().For(pods).URL().Path)
		})
	}
}

func TestDiscoverErrors(t *testing.T) {
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api":
			w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
			w.Write([]byte(`{"kind":"Something"}`))
		}
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	_, err := c.Discover(t.Context())
	assert.ErrorContains(t, err, `discovery: /api: got kind "Something", want APIGroupDiscoveryList`)

	srv2 := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(statusBody(403, "Forbidden", `forbidden: User "x" cannot get path "/api"`, "")))
	}))
	c2 := newTestClient(t, &Config{Host: srv2.URL})
	_, err = c2.Discover(t.Context())
	assert.True(t, IsForbidden(err), "got %v", err)
}
