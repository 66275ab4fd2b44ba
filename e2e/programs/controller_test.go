package programs

import (
	"context"
	"maps"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// EnvClusterWide allows, on E2E_TARGET=kubeconfig, the tests that write
// outside the namespaces they create.
const EnvClusterWide = "E2E_CLUSTER_WIDE"

// The example controller's label and annotation (examples/configmap-mirror).
const (
	mirrorLabel  = "kubecache.dev/mirror"
	copyLabel    = "kubecache.dev/mirror-copy"
	copyOfAnnot  = "kubecache.dev/mirror-of"
	mirrorWithin = 90 * time.Second
)

// TestConfigMapMirror runs examples/configmap-mirror against the target
// and checks it reaches its goal: a ConfigMap labelled for mirroring is
// copied into every namespace (with the copy label and the source's key),
// into a namespace created while it runs, a change of the source reaches
// every copy, and removing the label removes every copy.
func TestConfigMapMirror(t *testing.T) {
	tgt := target.Get(t)
	if tgt.Kind == target.Kubeconfig && os.Getenv(EnvClusterWide) != "1" {
		t.Skip("the controller copies a ConfigMap into every namespace of the cluster (and removes the copies at the end); " +
			"allow writes outside the suite's namespaces with " + EnvClusterWide + "=1")
	}
	cs := tgt.Clientset(t)
	src := tgt.Namespace(t)
	other := tgt.Namespace(t)
	name := target.NewName("mirror")

	p := start(t, false, mirrorPkg, "--kubeconfig", tgt.KubeconfigPath, "-v")
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{mirrorLabel: "true"}},
		Data:       map[string]string{"color": "red"},
	}
	_, err := cs.CoreV1().ConfigMaps(src).Create(t.Context(), cm, metav1.CreateOptions{})
	require.NoError(t, err)

	// copiesIn holds when every namespace of want has a copy with data.
	copiesIn := func(want []string, data map[string]string) func(copies) bool {
		return func(c copies) bool {
			for _, ns := range want {
				if got, ok := c[ns]; !ok || !maps.Equal(got, data) {
					return false
				}
			}
			return true
		}
	}
	awaitConfigMaps(t, cs, name, mirrorWithin, "a copy in "+other, copiesIn([]string{other}, cm.Data))
	// Every active namespace, not only the test's, gets one.
	nss, err := cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	var active []string
	for _, ns := range nss.Items {
		if ns.Status.Phase == corev1.NamespaceActive && ns.DeletionTimestamp == nil && ns.Name != src {
			active = append(active, ns.Name)
		}
	}
	awaitConfigMaps(t, cs, name, mirrorWithin, "a copy in every namespace", copiesIn(active, cm.Data))
	got, err := cs.CoreV1().ConfigMaps(other).Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "true", got.Labels[copyLabel])
	require.Equal(t, src+"/"+name, got.Annotations[copyOfAnnot])

	later := tgt.Namespace(t)
	awaitConfigMaps(t, cs, name, mirrorWithin, "a copy in "+later+", created after the source", copiesIn([]string{later}, cm.Data))

	_, err = cs.CoreV1().ConfigMaps(src).Patch(t.Context(), name, types.MergePatchType, []byte(`{"data":{"color":"blue"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	blue := map[string]string{"color": "blue"}
	awaitConfigMaps(t, cs, name, mirrorWithin, "every copy blue", copiesIn(append(active, later), blue))

	_, err = cs.CoreV1().ConfigMaps(src).Patch(t.Context(), name, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"`+mirrorLabel+`":null}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	awaitConfigMaps(t, cs, name, mirrorWithin, "the copies gone", func(c copies) bool {
		_, ok := c[src]
		return ok && len(c) == 1
	})

	require.NoError(t, p.Stop(), "configmap-mirror ends cleanly on Ctrl-C; its log:\n%s", p.Output())
	// Clean up the source so nothing of the test stays behind.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, cs.CoreV1().ConfigMaps(src).Delete(ctx, name, metav1.DeleteOptions{}))
}
