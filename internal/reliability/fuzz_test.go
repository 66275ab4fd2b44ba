package reliability_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/rest"
)

// discoveryDocs is what the fuzzed discovery server answers.
type discoveryDocs struct {
	api, apis, groupVersion []byte
	aggregated              bool
}

// FuzzDiscovery serves fuzzed discovery documents (/api, /apis and every
// group-version document, aggregated or legacy by Content-Type) to
// rest.Client.Discover and resolves words against what it made of them:
// nothing may panic or hang, whatever the server sends.
func FuzzDiscovery(f *testing.F) {
	f.Add([]byte(`{"kind":"APIVersions","versions":["v1"]}`),
		[]byte(`{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`),
		[]byte(`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list"],"shortNames":["po"]},{"name":"pods/status","namespaced":true,"kind":"Pod"}]}`),
		false, "po")
	f.Add([]byte(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{},"versions":[{"version":"v1","resources":[{"resource":"configmaps","responseKind":{"group":"","version":"v1","kind":"ConfigMap"},"scope":"Namespaced","singularResource":"configmap","verbs":["list"],"shortNames":["cm"],"subresources":[{"subresource":"status"}]}],"freshness":"Current"}]}]}`),
		[]byte(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[{"resource":"deployments","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"scope":"Namespaced"}]}]}]}`),
		[]byte(`{}`), true, "deployments.apps")
	f.Add([]byte(`{"versions":[null,"",5]}`), []byte(`{"groups":[{"name":"","versions":[{}]}]}`), []byte(`{"resources":[{"name":"/"},{"name":"a/b/c"}]}`), false, "a")
	f.Add([]byte(`not json`), []byte(`[]`), []byte(`null`), true, "")

	var docs atomic.Pointer[discoveryDocs]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := docs.Load()
		if d.aggregated {
			w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		switch {
		case r.URL.Path == "/api":
			_, _ = w.Write(d.api)
		case r.URL.Path == "/apis":
			_, _ = w.Write(d.apis)
		case strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/apis/"):
			_, _ = w.Write(d.groupVersion)
		default:
			http.NotFound(w, r)
		}
	}))
	f.Cleanup(ts.Close)
	c, err := rest.NewClient(&rest.Config{Host: ts.URL, QPS: -1})
	require.NoError(f, err)
	f.Cleanup(c.CloseIdleConnections)

	f.Fuzz(func(t *testing.T, api, apis, groupVersion []byte, aggregated bool, word string) {
		docs.Store(&discoveryDocs{api: api, apis: apis, groupVersion: groupVersion, aggregated: aggregated})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		d, err := c.Discover(ctx)
		require.NoError(t, ctx.Err(), "discovery did not finish")
		if err != nil {
			return
		}
		_, _ = d.Resolve(word)
		_, _ = d.ForKind("v1", word)
		_ = d.PreferredVersion(word)
	})
}
