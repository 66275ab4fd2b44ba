package rest

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// configMap is the object type the fake-server tests write and read.
type configMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// startFake starts the bundled fake API server and returns a client made
// from the kubeconfig it writes, as a user would.
func startFake(t *testing.T) (*fakeapiserver.Server, *Client, *Config) {
	t.Helper()
	s, cfg := startFakeWith(t, fakeapiserver.Options{Seed: 1})
	return s, newTestClient(t, cfg), cfg
}

// startFakeWith starts a fake server with opts, stopped when the test
// ends, and returns it with the Config loaded from the kubeconfig it
// writes.
func startFakeWith(t *testing.T, opts fakeapiserver.Options) (*fakeapiserver.Server, *Config) {
	t.Helper()
	s := fakeapiserver.New(opts)
	require.NoError(t, s.Start())
	t.Cleanup(s.Close)
	path := filepath.Join(t.TempDir(), "config")
	require.NoError(t, s.WriteKubeconfig(path))
	cfg, err := LoadKubeconfig(KubeconfigOptions{Path: path})
	require.NoError(t, err)
	return s, cfg
}

// TestAgainstFakeServer drives the client through the fake server: CRUD
// with each error class, a paginated list, a watch from the list's
// resourceVersion, and discovery.
func TestAgainstFakeServer(t *testing.T) {
	_, c, cfg := startFake(t)
	ctx := t.Context()
	ns := cfg.Namespace
	require.Equal(t, "default", ns)
	cms := func() *Request { return c.Get().Namespace(ns).Resource("configmaps") }

	// Create, and create again.
	for i := range 5 {
		cm := configMap{Data: map[string]string{"i": fmt.Sprint(i)}}
		cm.Name = fmt.Sprintf("cm-%d", i)
		var got configMap
		res := c.Post().Namespace(ns).Resource("configmaps").Body(&cm).Do(ctx)
		require.NoError(t, res.Into(&got))
		assert.Equal(t, 201, res.StatusCode())
		assert.NotEmpty(t, got.ResourceVersion)
		assert.NotEmpty(t, got.UID)
	}
	dup := configMap{}
	dup.Name = "cm-0"
	err := c.Post().Namespace(ns).Resource("configmaps").Body(&dup).Do(ctx).Error()
	assert.True(t, IsAlreadyExists(err), "second create: %v", err)

	err = cms().Name("missing").Do(ctx).Error()
	assert.True(t, IsNotFound(err), "get missing: %v", err)

	// A stale resourceVersion conflicts.
	var cm0 configMap
	require.NoError(t, cms().Name("cm-0").Do(ctx).Into(&cm0))
	cm0.Data = map[string]string{"i": "changed"}
	var updated configMap
	require.NoError(t, c.Put().Namespace(ns).Resource("configmaps").Name("cm-0").Body(&cm0).Do(ctx).Into(&updated))
	assert.NotEqual(t, cm0.ResourceVersion, updated.ResourceVersion)
	err = c.Put().Namespace(ns).Resource("configmaps").Name("cm-0").Body(&cm0).Do(ctx).Error()
	assert.True(t, IsConflict(err), "stale update: %v", err)

	// A patch.
	var patched configMap
	require.NoError(t, c.Patch(MergePatchType).Namespace(ns).Resource("configmaps").Name("cm-1").
		Body([]byte(`{"metadata":{"labels":{"app":"web"}}}`)).Do(ctx).Into(&patched))
	assert.Equal(t, "web", patched.Labels["app"])

	// A paginated list: every page reports the first page's RV.
	var names []string
	rv, cont := "", ""
	pages := 0
	for {
		req := cms().Param("limit", "2")
		if cont != "" {
			req = req.Param("continue", cont)
		}
		list, err := ListAs[*configMap](ctx, req)
		require.NoError(t, err)
		pages++
		if rv == "" {
			rv = list.ResourceVersion
		}
		assert.Equal(t, rv, list.ResourceVersion, "page %d", pages)
		for _, item := range list.Items {
			names = append(names, item.Name)
			assert.Equal(t, "ConfigMap", item.Kind)
		}
		if cont = list.Continue; cont == "" {
			break
		}
	}
	assert.Equal(t, 3, pages)
	assert.Equal(t, []string{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4"}, names)

	// Watch from the list's RV and see a delete.
	w, err := WatchAs[*configMap](ctx, cms().Param("resourceVersion", rv))
	require.NoError(t, err)
	defer w.Stop()
	require.NoError(t, c.Delete().Namespace(ns).Resource("configmaps").Name("cm-4").Do(ctx).Error())
	ev := <-w.ResultChan()
	require.Equal(t, watch.Deleted, ev.Type, "event %+v", ev)
	assert.Equal(t, "cm-4", ev.Object.Name)
	w.Stop()

	// Discovery from the server's own documents.
	d, err := c.Discover(ctx)
	require.NoError(t, err)
	for word, want := range map[string]string{"cm": "configmaps", "configmap": "configmaps", "ConfigMap": "configmaps", "po": "pods", "deploy": "deployments.apps"} {
		r, err := d.Resolve(word)
		if assert.NoError(t, err, "Resolve(%q)", word) {
			assert.Equal(t, want, r.GroupResource(), "Resolve(%q)", word)
		}
	}
	_, err = d.Resolve("foo")
	assert.EqualError(t, err, `the server doesn't have a resource type "foo"`)
}

// TestAgainstFakeServerTLSAndWebsocket uses the fake server's HTTPS and
// authentication (a token, then a client certificate) from its kubeconfig,
// and watches over a websocket and over chunked HTTP.
func TestAgainstFakeServerTLSAndWebsocket(t *testing.T) {
	for _, mode := range []string{"token", "client certificate"} {
		t.Run(mode, func(t *testing.T) {
			opts := fakeapiserver.Options{Seed: 1, TLS: true}
			if mode == "token" {
				opts.Tokens = map[string]fakeapiserver.User{"fake-token-1": {Name: "alice", Groups: []string{"system:masters"}}}
			} else {
				opts.ClientCertificates = true
			}
			_, cfg := startFakeWith(t, opts)
			require.NotEmpty(t, cfg.TLS.CAData)
			c := newTestClient(t, cfg)
			ctx := t.Context()

			for _, ws := range []bool{false, true} {
				req := c.Get().Namespace("default").Resource("configmaps").Param("allowWatchBookmarks", "true")
				if ws {
					req = req.Transport(WatchOverWebsocket)
				}
				w, err := WatchAs[*configMap](ctx, req)
				require.NoError(t, err, "websocket=%v", ws)
				name := fmt.Sprintf("ws-%v", ws)
				cm := configMap{}
				cm.Name = name
				require.NoError(t, c.Post().Namespace("default").Resource("configmaps").Body(&cm).Do(ctx).Error())
				for ev := range w.ResultChan() {
					require.NotEqual(t, watch.DecodeFailed, ev.Type, "event error %v", ev.Err)
					require.NotEqual(t, watch.Error, ev.Type, "event status %v", ev.Status)
					if ev.Type == watch.Added && ev.Object.Name == name {
						break
					}
				}
				w.Stop()
			}

			// Without credentials the server refuses, over both transports.
			anon := *cfg
			anon.BearerToken, anon.TLS.CertData, anon.TLS.KeyData = "", nil, nil
			ac := newTestClient(t, &anon)
			err := ac.Get().Namespace("default").Resource("configmaps").Do(ctx).Error()
			assert.True(t, IsUnauthorized(err), "anonymous get: %v", err)
			_, err = WatchAs[*configMap](ctx, ac.Get().Namespace("default").Resource("configmaps").Transport(WatchOverWebsocket))
			assert.True(t, IsUnauthorized(err), "anonymous websocket watch: %v", err)
		})
	}
}
