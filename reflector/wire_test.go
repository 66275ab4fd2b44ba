package reflector

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// wirePod holds a pod's metadata and the usual shapes of its spec and
// status: nested structs, slices, pointers, int32s, quantities in maps,
// times, and values held generically (converted through JSON).
type wirePod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		NodeName   string `json:"nodeName,omitempty"`
		Containers []struct {
			Name      string                          `json:"name"`
			Image     string                          `json:"image,omitempty"`
			Ports     []struct{ ContainerPort int32 } `json:"ports,omitempty"`
			Resources struct {
				Limits map[string]string `json:"limits,omitempty"`
			} `json:"resources,omitempty"`
			Env []map[string]any `json:"env,omitempty"`
		} `json:"containers"`
		TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
		Tolerations                   []any  `json:"tolerations,omitempty"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase,omitempty"`
		Conditions []struct {
			Type               string    `json:"type"`
			LastTransitionTime meta.Time `json:"lastTransitionTime,omitzero"`
		} `json:"conditions,omitempty"`
	} `json:"status"`
}

// wireDeployment holds a Deployment's replicas, selector, template and
// status.
type wireDeployment struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas *int32 `json:"replicas,omitempty"`
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels,omitempty"`
		} `json:"selector"`
		Template struct {
			meta.ObjectMeta `json:"metadata"`
			Spec            map[string]any `json:"spec"`
		} `json:"template"`
		Strategy any `json:"strategy,omitempty"`
	} `json:"spec"`
	Status map[string]any `json:"status"`
}

// traced runs a reflector over src into a new store and records its
// trace.
type traced[T meta.Object] struct {
	store  *cache.Indexer[T]
	mu     sync.Mutex
	events []TraceEvent
	change chan struct{}
}

func runTraced[T meta.Object](t *testing.T, c *rest.Client, src Source) *traced[T] {
	t.Helper()
	return runTracedWith[T](t, c, src, Options{DisableStreamingList: true})
}

// runTracedWith is runTraced with the reflector's options (Trace is set).
func runTracedWith[T meta.Object](t *testing.T, c *rest.Client, src Source, opts Options) *traced[T] {
	t.Helper()
	tr := &traced[T]{store: cache.NewIndexer[T](nil), change: make(chan struct{})}
	lw, err := NewListWatch[T](c, src)
	require.NoError(t, err)
	opts.Trace = func(e TraceEvent) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		tr.events = append(tr.events, e)
		close(tr.change)
		tr.change = make(chan struct{})
	}
	r, err := NewReflector[T](lw, tr.store, opts)
	require.NoError(t, err)
	runUntil(t, r.Run)
	return tr
}

// allTraces returns the trace so far.
func (tr *traced[T]) allTraces() []TraceEvent {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]TraceEvent(nil), tr.events...)
}

// await waits until ok holds for the recorded trace.
func (tr *traced[T]) await(t *testing.T, what string, ok func(events []TraceEvent) bool) {
	t.Helper()
	deadline := time.After(loopbackTimeout)
	for {
		tr.mu.Lock()
		done, ch := ok(tr.events), tr.change
		tr.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// wires returns the wire of every page and watch in the trace.
func (tr *traced[T]) wires() (pages, watches []rest.Wire) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, e := range tr.events {
		switch e := e.(type) {
		case ListPageReceived:
			pages = append(pages, e.Wire)
		case WatchOpened:
			watches = append(watches, e.Wire)
		}
	}
	return pages, watches
}

// applied reports whether an event for key at resourceVersion rv was
// applied.
func applied(key string) func([]TraceEvent) bool {
	return func(events []TraceEvent) bool {
		for _, e := range events {
			if a, ok := e.(EventApplied); ok && a.Key == key {
				return true
			}
		}
		return false
	}
}

func synced(events []TraceEvent) bool {
	for _, e := range events {
		if _, ok := e.(WatchOpened); ok {
			return true
		}
	}
	return false
}

// sorted returns the store's objects by key.
func sorted[T meta.Object](s *cache.Indexer[T]) []T {
	out := s.List()
	sort.Slice(out, func(i, j int) bool { return meta.Key(out[i]) < meta.Key(out[j]) })
	return out
}

// differential runs T over resource in JSON and in the automatic choice,
// checks that the automatic one is protobuf, then that both caches hold
// the same objects after the list and after one watch event.
func differential[T meta.Object](t *testing.T, c *rest.Client, resource string, update func(), key string) {
	t.Helper()
	differentialWire[T](t, c, resource, rest.WireAuto, update, key)
}

// differentialWire is differential with the protobuf side's Source.Wire
// set to wire.
func differentialWire[T meta.Object](t *testing.T, c *rest.Client, resource string, wire rest.Wire, update func(), key string) {
	t.Helper()
	js := runTraced[T](t, c, Source{Resource: resource, Wire: rest.WireJSON})
	pb := runTraced[T](t, c, Source{Resource: resource, Wire: wire})
	js.await(t, "the JSON sync", synced)
	pb.await(t, "the protobuf sync", synced)
	require.NotZero(t, js.store.Len())
	assert.Equal(t, comparable(t, sorted(js.store)), comparable(t, sorted(pb.store)), "after the list")
	pages, watches := pb.wires()
	assert.Equal(t, []rest.Wire{rest.WireProtobuf}, pages)
	assert.Equal(t, []rest.Wire{rest.WireProtobuf}, watches)
	pages, watches = js.wires()
	assert.Equal(t, []rest.Wire{rest.WireJSON}, pages)
	assert.Equal(t, []rest.Wire{rest.WireJSON}, watches)
	update()
	js.await(t, "the JSON event", applied(key))
	pb.await(t, "the protobuf event", applied(key))
	assert.Equal(t, comparable(t, sorted(js.store)), comparable(t, sorted(pb.store)), "after the watch event")
}

// comparable returns objs as they compare across wires: Unstructured
// objects as their decoded trees, since the fake server's JSON keeps the
// members in the order they were posted in, where protobuf gives them in
// the order the real server writes them; other objects as they are.
func comparable[T meta.Object](t *testing.T, objs []T) any {
	t.Helper()
	us, ok := any(objs).([]*meta.Unstructured)
	if !ok {
		return objs
	}
	trees := make([]map[string]any, len(us))
	for i, u := range us {
		tree, err := u.Object()
		require.NoError(t, err)
		trees[i] = tree
	}
	return trees
}

const wirePodJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default",
 "labels":{"app":"web","tier":"front"},"annotations":{"note":"a<b>&c"}},
 "spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":8080,"name":"http"}],
   "resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"env":[{"name":"MODE","value":"prod"}]}],
  "terminationGracePeriodSeconds":30,"tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":60}]}}`

const wireDeploymentJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"%s","namespace":"default"},
 "spec":{"replicas":3,"selector":{"matchLabels":{"app":"%[1]s"}},
  "template":{"metadata":{"labels":{"app":"%[1]s"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}}`

// TestProtobufCachesEqualJSON runs typed reflectors on Pods, ConfigMaps
// and Deployments over protobuf and over JSON against the fake server and
// compares their caches, after the list and after a watch event.
func TestProtobufCachesEqualJSON(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c := newClient(t, srv.URL())
	pods := []string{"api", "v1", "namespaces", "default", "pods"}
	cms := []string{"api", "v1", "namespaces", "default", "configmaps"}
	deps := []string{"apis", "apps", "v1", "namespaces", "default", "deployments"}
	for i := range 5 {
		postRaw(t, c, pods, fmt.Sprintf(wirePodJSON, fmt.Sprintf("p%d", i)))
		postRaw(t, c, cms, fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm%d","namespace":"default"},"data":{"k":"v%d","u":"é ü"}}`, i, i))
		postRaw(t, c, deps, fmt.Sprintf(wireDeploymentJSON, fmt.Sprintf("d%d", i)))
	}
	t.Run("pods", func(t *testing.T) {
		differential[*wirePod](t, c, "pods", func() { postRaw(t, c, pods, fmt.Sprintf(wirePodJSON, "p-new")) }, "default/p-new")
	})
	t.Run("configmaps", func(t *testing.T) {
		differential[*ConfigMap](t, c, "configmaps", func() {
			postRaw(t, c, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-new","namespace":"default"}}`)
		}, "default/cm-new")
	})
	t.Run("deployments", func(t *testing.T) {
		differential[*wireDeployment](t, c, "apps/v1/deployments", func() { postRaw(t, c, deps, fmt.Sprintf(wireDeploymentJSON, "d-new")) }, "default/d-new")
	})
	t.Run("metadata", func(t *testing.T) {
		differential[*meta.PartialObjectMetadata](t, c, "pods", func() { postRaw(t, c, pods, fmt.Sprintf(wirePodJSON, "p-meta")) }, "default/p-meta")
	})
	// Unstructured asks for protobuf only when told to (see TestWireChoice).
	t.Run("unstructured pods", func(t *testing.T) {
		differentialWire[*meta.Unstructured](t, c, "pods", rest.WireProtobuf,
			func() { postRaw(t, c, pods, fmt.Sprintf(wirePodJSON, "p-unstructured")) }, "default/p-unstructured")
	})
	t.Run("unstructured deployments", func(t *testing.T) {
		differentialWire[*meta.Unstructured](t, c, "apps/v1/deployments", rest.WireProtobuf,
			func() { postRaw(t, c, deps, fmt.Sprintf(wireDeploymentJSON, "d-unstructured")) }, "default/d-unstructured")
	})
}

// TestWireChoice checks what each Source asks for, as the trace reports
// it: JSON for Unstructured and custom resources, protobuf when forced
// (Unstructured then written as JSON from each protobuf message).
func TestWireChoice(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c := newClient(t, srv.URL())
	postRaw(t, c, []string{"apis", "apiextensions.k8s.io", "v1", "customresourcedefinitions"}, widgetCRD)
	widgets := []string{"apis", "example.com", "v1", "namespaces", "default", "widgets"}
	postRaw(t, c, widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`)
	postRaw(t, c, []string{"api", "v1", "namespaces", "default", "configmaps"},
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`)
	check := func(t *testing.T, tr interface {
		wires() ([]rest.Wire, []rest.Wire)
	}, want rest.Wire) {
		t.Helper()
		pages, watches := tr.wires()
		assert.Equal(t, []rest.Wire{want}, pages)
		assert.Equal(t, []rest.Wire{want}, watches)
	}
	t.Run("custom resource stays JSON", func(t *testing.T) {
		tr := runTraced[*ConfigMap](t, c, Source{Resource: "widgets.v1.example.com"})
		tr.await(t, "sync", synced)
		check(t, tr, rest.WireJSON)
		assert.Equal(t, 1, tr.store.Len())
	})
	t.Run("custom resource forced to protobuf is answered in JSON", func(t *testing.T) {
		tr := runTraced[*meta.Unstructured](t, c, Source{Resource: "widgets.v1.example.com", Wire: rest.WireProtobuf})
		tr.await(t, "sync", synced)
		check(t, tr, rest.WireJSON)
		assert.Equal(t, 1, tr.store.Len())
	})
	t.Run("unstructured stays JSON", func(t *testing.T) {
		tr := runTraced[*meta.Unstructured](t, c, Source{Resource: "configmaps"})
		tr.await(t, "sync", synced)
		check(t, tr, rest.WireJSON)
	})
	t.Run("unstructured forced to protobuf", func(t *testing.T) {
		js := runTraced[*meta.Unstructured](t, c, Source{Resource: "configmaps", Wire: rest.WireJSON})
		pb := runTraced[*meta.Unstructured](t, c, Source{Resource: "configmaps", Wire: rest.WireProtobuf})
		js.await(t, "sync", synced)
		pb.await(t, "sync", synced)
		check(t, pb, rest.WireProtobuf)
		assert.Equal(t, sorted(js.store), sorted(pb.store))
	})
	t.Run("websocket watches stay JSON", func(t *testing.T) {
		tr := runTraced[*ConfigMap](t, c, Source{Resource: "configmaps", Transport: rest.WatchOverWebsocket})
		tr.await(t, "sync", synced)
		check(t, tr, rest.WireJSON)
	})
}

// TestProtobufWatchError checks that an in-stream 410 over protobuf makes
// the reflector relist, as over JSON.
func TestProtobufWatchError(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c := newClient(t, srv.URL())
	postRaw(t, c, []string{"api", "v1", "namespaces", "default", "configmaps"},
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)
	tr := runTraced[*ConfigMap](t, c, Source{Resource: "configmaps"})
	tr.await(t, "sync", synced)
	// The list's sync comes before the watch that follows it is open.
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	require.NoError(t, srv.WaitForWatchers(ctx, "configmaps", 1))
	srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Code: 410})
	require.Equal(t, 1, srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutClean))
	tr.await(t, "the relist", func(events []TraceEvent) bool {
		n := 0
		for _, e := range events {
			if _, ok := e.(Replaced); ok {
				n++
			}
		}
		return n == 2
	})
	pages, _ := tr.wires()
	assert.Equal(t, []rest.Wire{rest.WireProtobuf, rest.WireProtobuf}, pages)
}

// TestTraceSaysWhenCompressed: a streaming list comes gzip-encoded from a
// server with WatchListCompression, and the trace says so; the plain
// watch that resumes after a cut comes as it is. With DisableCompression
// nothing is compressed.
func TestTraceSaysWhenCompressed(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c := newClient(t, srv.URL())
	postRaw(t, c, []string{"api", "v1", "namespaces", "default", "configmaps"},
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)
	opened := func(n int) func([]TraceEvent) bool {
		return func(events []TraceEvent) bool {
			k := 0
			for _, e := range events {
				if _, ok := e.(WatchOpened); ok {
					k++
				}
			}
			return k >= n
		}
	}
	tr := runTracedWith[*ConfigMap](t, c, Source{Resource: "configmaps"}, Options{})
	tr.await(t, "the streaming list", opened(1))
	tr.await(t, "sync", synced)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	require.NoError(t, srv.WaitForWatchers(ctx, "configmaps", 1))
	require.Equal(t, 1, srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutClean))
	tr.await(t, "the resumed watch", opened(2))
	got := tracesOf[WatchOpened](tr)
	assert.Equal(t, WatchOpened{Wire: rest.WireProtobuf, ContentEncoding: "gzip"}, got[0])
	assert.Equal(t, "watch opened (protobuf, gzip)", got[0].String())
	assert.Equal(t, WatchOpened{Wire: rest.WireProtobuf}, got[1])

	plain, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1, DisableCompression: true})
	require.NoError(t, err)
	t.Cleanup(plain.CloseIdleConnections)
	tr = runTracedWith[*ConfigMap](t, plain, Source{Resource: "configmaps"}, Options{})
	tr.await(t, "the streaming list", opened(1))
	got = tracesOf[WatchOpened](tr)
	assert.Equal(t, WatchOpened{Wire: rest.WireProtobuf}, got[0])
}
