package reflector

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/watchspy"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
  "versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// postRaw creates an object from its JSON at path.
func postRaw(t *testing.T, c *rest.Client, path []string, body string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), loopbackTimeout)
	defer cancel()
	err := c.Post().AbsPath(path...).SetHeader("Content-Type", "application/json").Body([]byte(body)).Do(ctx).Error()
	require.NoError(t, err, "POST %v", path)
}

// runUntil runs run in a goroutine until the test ends.
func runUntil(t *testing.T, run func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := run(ctx); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// waitLen waits until the store holds n objects.
func (s *checkedStore) waitLen(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(loopbackTimeout)
	for {
		s.mu.Lock()
		c := s.changed
		s.mu.Unlock()
		if s.Len() == n {
			return
		}
		select {
		case <-c:
		case <-deadline:
			t.Fatalf("store holds %d objects, want %d", s.Len(), n)
		}
	}
}

func TestMirrorGivesBuiltinItemsTheListKind(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c := newClient(t, srv.URL())
	for _, n := range []string{"a", "b"} {
		postRaw(t, c, []string{"api", "v1", "namespaces", "default", "configmaps"},
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+n+`"}}`)
	}
	store := newCheckedStore()
	runUntil(t, func(ctx context.Context) error { return Mirror[*ConfigMap](ctx, c, "configmaps", "default", store) })
	store.waitLen(t, 2)
	for _, cm := range store.List() {
		assert.Equal(t, meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, cm.TypeMeta, "%s", cm.Name)
	}
}

func TestCustomResourcesKeepTheirKindAndADeletedCRDIsReported(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c := newClient(t, srv.URL())
	crds := []string{"apis", "apiextensions.k8s.io", "v1", "customresourcedefinitions"}
	widgets := []string{"apis", "example.com", "v1", "namespaces", "default", "widgets"}
	postRaw(t, c, crds, widgetCRD)
	postRaw(t, c, widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`)

	store := cache.NewIndexer[*meta.Unstructured](nil)
	errs := make(chan *Error, 100)
	synced := make(chan struct{}, 100)
	lw := NewListWatchFromClient[*meta.Unstructured](c, "widgets.v1.example.com", "default", selector.Fields{})
	r, err := NewReflector[*meta.Unstructured](lw, store, Options{
		DisableStreamingList: true, Backoff: fastBackoff,
		// Short watches bound the wait should a watch outlive the
		// CRD's deletion (both servers end such watches).
		MinWatchTimeout: time.Second, MaxWatchTimeout: 2 * time.Second,
		OnError: func(e *Error) {
			select {
			case errs <- e:
			default:
			}
		},
		Trace: func(e TraceEvent) {
			if _, ok := e.(Replaced); ok {
				synced <- struct{}{}
			}
		},
	})
	require.NoError(t, err)
	runUntil(t, r.Run)
	recv(t, synced)
	w1, ok := store.GetByKey("default/w1")
	require.True(t, ok)
	assert.Equal(t, meta.TypeMeta{Kind: "Widget", APIVersion: "example.com/v1"}, w1.TypeMeta)

	// The CRD goes away: the watch ends, and the resource is not found
	// any more, which only a human can fix. It is reported as such.
	ctx, cancel := context.WithTimeout(context.Background(), loopbackTimeout)
	defer cancel()
	require.NoError(t, c.Delete().AbsPath(crds...).Name("widgets.example.com").Do(ctx).Error())
	for {
		e := recv(t, errs)
		if e.Class == ClassNeedsHuman {
			assert.True(t, rest.IsNotFound(e), "%v", e)
			break
		}
	}

	// It comes back, empty: the relist empties the store.
	postRaw(t, c, crds, widgetCRD)
	recv(t, synced)
	assert.Zero(t, store.Len())
}

func TestNewListWatchRejectsBadSources(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c := newClient(t, srv.URL())
	for _, tc := range []struct {
		src  Source
		want string
	}{
		{Source{Resource: ""}, "resource \"\": empty"},
		{Source{Resource: "configmaps", LabelSelector: "a in (b"}, "label selector"},
		{Source{Resource: "configmaps", FieldSelector: "metadata.name"}, "field selector"},
	} {
		_, err := NewListWatch[*ConfigMap](c, tc.src)
		if assert.Error(t, err, "%+v", tc.src) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	_, err := NewListWatch[*ConfigMap](nil, Source{Resource: "configmaps"})
	assert.ErrorIs(t, err, ErrInvalidOptions)
	var nilClient *rest.Client
	_, err = NewListWatch[*ConfigMap](nilClient, Source{Resource: "configmaps"})
	assert.ErrorIs(t, err, ErrInvalidOptions, "a nil *rest.Client")

	// The article's form defers the error to every List and Watch.
	lw := NewListWatchFromClient[*ConfigMap](c, "not/a/valid/resource", "", selector.Fields{})
	_, err = lw.List(t.Context(), ListOptions{}, nil, func(*ConfigMap) error { return nil })
	assert.ErrorIs(t, err, rest.ErrInvalidRequest)
	_, err = lw.Watch(t.Context(), ListOptions{}, nil)
	assert.ErrorIs(t, err, rest.ErrInvalidRequest)
}

// TestNewListWatchWatchesOverEitherTransport mirrors configmaps with watches
// over chunked HTTP and over a websocket, through a proxy that records
// whether each watch request asked for a websocket upgrade (watchspy).
func TestNewListWatchWatchesOverEitherTransport(t *testing.T) {
	for _, tr := range []rest.WatchTransport{rest.WatchOverHTTP, rest.WatchOverWebsocket} {
		t.Run(tr.String(), func(t *testing.T) {
			srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
			spy := watchspy.New(t, srv.URL())
			direct := newClient(t, srv.URL())
			postRaw(t, direct, []string{"api", "v1", "namespaces", "default", "configmaps"},
				`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"listed"}}`)

			lw, err := NewListWatch[*ConfigMap](newClient(t, spy.URL), Source{Resource: "configmaps", Namespace: "default", Transport: tr})
			require.NoError(t, err)
			store := newCheckedStore()
			r, err := NewReflector[*ConfigMap](lw, store, Options{Name: "configmaps", DisableStreamingList: true, Backoff: fastBackoff})
			require.NoError(t, err)
			runUntil(t, r.Run)
			store.waitLen(t, 1)
			want := ""
			if tr == rest.WatchOverWebsocket {
				want = "websocket"
			}
			assert.Equal(t, want, recv(t, spy.Upgrades), "the watch request's Upgrade header")

			postRaw(t, direct, []string{"api", "v1", "namespaces", "default", "configmaps"},
				`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched"}}`)
			store.waitLen(t, 2)
			got, ok := store.GetByKey("default/watched")
			require.True(t, ok, "the object created after the list arrives through the watch")
			assert.Equal(t, meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, got.TypeMeta)
		})
	}
}
