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

// seeded returns the target, a fresh namespace of it holding the
// ConfigMap a (k=1), and a typed client: where every informer test starts.
func seeded(t *testing.T) (*target.Target, string, kubernetes.Interface) {
	t.Helper()
	tgt := target.Get(t)
	ns := tgt.Namespace(t)
	cs := typedClient(t)
	_, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	return tgt, ns, cs
}

// factory is what the typed, dynamic and metadata informer factories have
// in common.
type factory interface {
	Start(stopCh <-chan struct{})
	Shutdown()
}

// startAndExercise adds a recording handler to inf, starts f (shut down
// when the test ends), waits until inf has synced and delivered the seeded
// a, then makes exercise's changes and checks that inf delivers them.
func startAndExercise(t *testing.T, cs kubernetes.Interface, ns string, f factory, inf cache.SharedIndexInformer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(func() { cancel(); f.Shutdown() })
	s := newSeen()
	_, err := inf.AddEventHandler(s.handler(objName))
	require.NoError(t, err)
	f.Start(ctx.Done())
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced), "informer synced")
	s.expect(t, "add a")
	exercise(t, cs, ns, s)
}

// TestTypedInformer runs a typed shared informer with client-go's default
// configuration (protobuf both ways), with streaming lists on and off.
func TestTypedInformer(t *testing.T) {
	withWatchList(t, func(t *testing.T) {
		_, ns, cs := seeded(t)
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
		inf := f.Core().V1().ConfigMaps()
		startAndExercise(t, cs, ns, f, inf.Informer())
		got, err := inf.Lister().ConfigMaps(ns).Get("a")
		require.NoError(t, err)
		assert.Equal(t, "2", got.Data["k"])
	})
}

// TestDynamicInformer runs a dynamic (unstructured) informer.
func TestDynamicInformer(t *testing.T) {
	withWatchList(t, func(t *testing.T) {
		tgt, ns, cs := seeded(t)
		dc, err := dynamic.NewForConfig(tgt.RESTConfig(t))
		require.NoError(t, err)
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, ns, nil)
		inf := f.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
		startAndExercise(t, cs, ns, f, inf.Informer())
	})
}

// TestMetadataInformer runs a metadata-only informer
// (PartialObjectMetadata through the Accept header).
func TestMetadataInformer(t *testing.T) {
	withWatchList(t, func(t *testing.T) {
		tgt, ns, cs := seeded(t)
		mc, err := metadata.NewForConfig(tgt.RESTConfig(t))
		require.NoError(t, err)
		f := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, ns, nil)
		inf := f.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
		startAndExercise(t, cs, ns, f, inf.Informer())
		objs := inf.Informer().GetStore().List()
		require.Len(t, objs, 1)
		m, ok := objs[0].(*metav1.PartialObjectMetadata)
		require.True(t, ok, "stored %T", objs[0])
		assert.Equal(t, "a", m.Name)
	})
}
