package clientgo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// gates is client-go's feature gates with WatchListClient set by the test.
type gates struct {
	base      features.Gates
	watchList bool
}

func (g gates) Enabled(k features.Feature) bool {
	if k == features.WatchListClient {
		return g.watchList
	}
	return g.base.Enabled(k)
}

// withWatchList runs fn once with client-go's streaming lists
// (WatchListClient) on and once with them off. Not parallel: the gates are
// global.
func withWatchList(t *testing.T, fn func(t *testing.T)) {
	base := features.FeatureGates()
	t.Cleanup(func() { features.ReplaceFeatureGates(base) })
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchListClient=%v", on), func(t *testing.T) {
			features.ReplaceFeatureGates(gates{base: base, watchList: on})
			fn(t)
		})
	}
}

// seen records what an informer's handler saw, in order.
type seen struct{ ch chan string }

func newSeen() *seen { return &seen{ch: make(chan string, 100)} }

func (s *seen) handler(name func(obj any) string) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.ch <- "add " + name(obj) },
		UpdateFunc: func(_, obj any) { s.ch <- "update " + name(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			s.ch <- "delete " + name(obj)
		},
	}
}

// expect waits for the handler to report want, in order.
func (s *seen) expect(t *testing.T, want ...string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for _, w := range want {
		select {
		case got := <-s.ch:
			require.Equal(t, w, got)
		case <-timeout:
			t.Fatalf("informer handler: still waiting for %q", w)
		}
	}
}

func objName(obj any) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetName()
	}
	return fmt.Sprintf("%T", obj)
}

// typedClient is a clientset with client-go's default rest.Config:
// protobuf request bodies, protobuf asked first in Accept.
func typedClient(t *testing.T) *kubernetes.Clientset {
	cfg := target.Get(t).RESTConfig(t)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs
}

// exercise makes the changes every informer test expects to see.
func exercise(t *testing.T, cs kubernetes.Interface, ns string, s *seen) {
	t.Helper()
	ctx := t.Context()
	cms := cs.CoreV1().ConfigMaps(ns)
	_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	s.expect(t, "add b")
	_, err = cms.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "2"}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	s.expect(t, "update a")
	require.NoError(t, cms.Delete(ctx, "b", metav1.DeleteOptions{}))
	s.expect(t, "delete b")
}

func seed(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	_, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// TestTypedInformer runs a typed shared informer with client-go's default
// configuration (protobuf both ways), with streaming lists on and off.
func TestTypedInformer(t *testing.T) {
	withWatchList(t, func(t *testing.T) {
		tgt := target.Get(t)
		ns := tgt.Namespace(t)
		cs := typedClient(t)
		seed(t, cs, ns)
		ctx, cancel := context.WithCancel(t.Context())
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
		t.Cleanup(func() { cancel(); f.Shutdown() })
		inf := f.Core().V1().ConfigMaps()
		s := newSeen()
		_, err := inf.Informer().AddEventHandler(s.handler(objName))
		require.NoError(t, err)
		f.Start(ctx.Done())
		for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
			require.True(t, ok, "cache of %v synced", typ)
		}
		s.expect(t, "add a")
		exercise(t, cs, ns, s)
		got, err := inf.Lister().ConfigMaps(ns).Get("a")
		require.NoError(t, err)
		assert.Equal(t, "2", got.Data["k"])
	})
}

// TestDynamicInformer runs a dynamic (unstructured) informer.
func TestDynamicInformer(t *testing.T) {
	withWatchList(t, func(t *testing.T) {
		tgt := target.Get(t)
		ns := tgt.Namespace(t)
		cs := typedClient(t)
		seed(t, cs, ns)
		dc, err := dynamic.NewForConfig(tgt.RESTConfig(t))
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, ns, nil)
		t.Cleanup(func() { cancel(); f.Shutdown() })
		inf := f.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
		s := newSeen()
		_, err = inf.Informer().AddEventHandler(s.handler(objName))
		require.NoError(t, err)
		f.Start(ctx.Done())
		for gvr, ok := range f.WaitForCacheSync(ctx.Done()) {
			require.True(t, ok, "cache of %v synced", gvr)
		}
		s.expect(t, "add a")
		exercise(t, cs, ns, s)
	})
}

// TestMetadataInformer runs a metadata-only informer
// (PartialObjectMetadata through the Accept header).
func TestMetadataInformer(t *testing.T) {
	withWatchList(t, func(t *testing.T) {
		tgt := target.Get(t)
		ns := tgt.Namespace(t)
		cs := typedClient(t)
		seed(t, cs, ns)
		mc, err := metadata.NewForConfig(tgt.RESTConfig(t))
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		f := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, ns, nil)
		t.Cleanup(func() { cancel(); f.Shutdown() })
		inf := f.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
		s := newSeen()
		_, err = inf.Informer().AddEventHandler(s.handler(objName))
		require.NoError(t, err)
		f.Start(ctx.Done())
		for gvr, ok := range f.WaitForCacheSync(ctx.Done()) {
			require.True(t, ok, "cache of %v synced", gvr)
		}
		s.expect(t, "add a")
		exercise(t, cs, ns, s)
		objs := inf.Informer().GetStore().List()
		require.Len(t, objs, 1)
		m, ok := objs[0].(*metav1.PartialObjectMetadata)
		require.True(t, ok, "stored %T", objs[0])
		assert.Equal(t, "a", m.Name)
	})
}
