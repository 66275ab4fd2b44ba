package stack

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubecache/kubecache/e2e/internal/target"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// setLabel is the label selector of the ConfigMaps these tests cache (a
// real server puts kube-root-ca.crt in every namespace).
const setLabel = "kubecache-e2e-set"

func createLabelledCM(t *testing.T, c *rest.Client, ns, name string) *ConfigMap {
	t.Helper()
	cm := &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{setLabel: "x"}}}
	require.NoError(t, c.Post().Namespace(ns).Resource("configmaps").Body(cm).Do(t.Context()).Into(cm))
	return cm
}

// TestMultiNamespaceInformer caches two namespaces of three, one watch
// each, then adds the third and removes the first at run time; a second
// informer follows the namespaces a label selects as the label moves.
func TestMultiNamespaceInformer(t *testing.T) {
	tg := target.Get(t)
	c := client(t)
	a, b, x := tg.Namespace(t), tg.Namespace(t), tg.Namespace(t)
	for _, ns := range []string{a, b, x} {
		createLabelledCM(t, c, ns, "one")
	}
	src := reflector.Source{Resource: "configmaps", LabelSelector: setLabel}
	m, err := informer.NewMultiNamespace(c, src, informer.MultiNamespaceOptions[*ConfigMap]{Namespaces: []string{a, b}})
	require.NoError(t, err)
	ev := newEvents()
	_, err = m.AddEventHandler(handler[*ConfigMap](ev), informer.HandlerOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	require.NoError(t, informer.WaitForCacheSync(ctx, m))
	ev.await(t, "add "+a+"/one", "add "+b+"/one")
	assert.ElementsMatch(t, []string{a + "/one", b + "/one"}, m.Indexer().ListKeys())

	two := createLabelledCM(t, c, a, "two")
	require.NoError(t, m.WaitForNamespaceFreshness(ctx, a, two.ResourceVersion))
	_, err = m.Lister().Get(a + "/two")
	require.NoError(t, err, "read your write in one namespace of the set")

	require.NoError(t, m.AddNamespace(x))
	ev.await(t, "add "+x+"/one")
	require.NoError(t, m.RemoveNamespace(ctx, a))
	ev.await(t, "delete "+a+"/one unknown", "delete "+a+"/two unknown")
	assert.ElementsMatch(t, []string{b + "/one", x + "/one"}, m.Indexer().ListKeys())
	st := m.Namespaces()
	require.Len(t, st, 2)
	for _, s := range st {
		assert.True(t, s.Synced, "%s synced", s.Namespace)
		assert.NotEmpty(t, s.ResourceVersion)
	}

	// A label-selected set: b and x carry the label, then b loses it.
	cs := tg.Clientset(t)
	team := target.NewName("team")
	patch := func(ns, value string) {
		body := `{"metadata":{"labels":{"kubecache-e2e-team":` + value + `}}}`
		_, err := cs.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, []byte(body), metav1.PatchOptions{})
		require.NoError(t, err)
	}
	patch(b, `"`+team+`"`)
	patch(x, `"`+team+`"`)
	sel, err := informer.NewMultiNamespace(c, src, informer.MultiNamespaceOptions[*ConfigMap]{NamespaceSelector: "kubecache-e2e-team=" + team})
	require.NoError(t, err)
	sev := newEvents()
	_, err = sel.AddEventHandler(handler[*ConfigMap](sev), informer.HandlerOptions{})
	require.NoError(t, err)
	sdone := make(chan error, 1)
	go func() { sdone <- sel.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-sdone })
	require.NoError(t, informer.WaitForCacheSync(ctx, sel))
	sev.await(t, "add "+b+"/one", "add "+x+"/one")
	patch(b, "null")
	sev.await(t, "delete "+b+"/one unknown")
	assert.Equal(t, []string{x + "/one"}, sel.Indexer().ListKeys())
}
