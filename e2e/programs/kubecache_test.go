package programs

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

func createCM(t *testing.T, cs kubernetes.Interface, ns, name string, labels, data map[string]string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: data}
	_, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{})
	require.NoError(t, err, "create configmap %s/%s", ns, name)
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestKubecacheGet runs `kubecache get` against the target: a table, -o
// name with a label selector (in one list and page by page), -o json of
// one object, and an unknown resource type.
func TestKubecacheGet(t *testing.T) {
	tgt := target.Get(t)
	cs := tgt.Clientset(t)
	ns := tgt.Namespace(t)
	app := map[string]string{"app": "e2e"}
	createCM(t, cs, ns, "alpha", app, map[string]string{"v": "1"})
	createCM(t, cs, ns, "beta", app, map[string]string{"v": "2", "w": "3"})
	createCM(t, cs, ns, "gamma", map[string]string{"app": "other"}, nil)
	kc := "--kubeconfig=" + tgt.KubeconfigPath

	t.Run("table", func(t *testing.T) {
		r := run(t, kubecachePkg, "get", "configmaps", "-n", ns, kc)
		require.NoError(t, r.Err, "stderr: %s", r.Stderr)
		out := lines(r.Stdout)
		require.NotEmpty(t, out)
		assert.Equal(t, []string{"NAME", "DATA", "AGE"}, strings.Fields(out[0]))
		rows := map[string][]string{}
		for _, l := range out[1:] {
			f := strings.Fields(l)
			require.Len(t, f, 3, "row %q", l)
			rows[f[0]] = f[1:]
		}
		// A cluster may add its own ConfigMaps (kube-root-ca.crt) to a
		// new namespace; the test's are there with their data counts.
		assert.Equal(t, "1", rows["alpha"][0])
		assert.Equal(t, "2", rows["beta"][0])
		assert.Equal(t, "0", rows["gamma"][0])
	})

	for _, chunk := range []string{"500", "1"} {
		t.Run("names by label, chunk size "+chunk, func(t *testing.T) {
			r := run(t, kubecachePkg, "get", "configmaps", "-n", ns, "-l", "app=e2e", "-o", "name", "--chunk-size", chunk, kc)
			require.NoError(t, r.Err, "stderr: %s", r.Stderr)
			got := lines(r.Stdout)
			slices.Sort(got)
			assert.Equal(t, []string{"configmap/alpha", "configmap/beta"}, got)
		})
	}

	t.Run("one as json", func(t *testing.T) {
		r := run(t, kubecachePkg, "get", "configmap", "beta", "-n", ns, "-o", "json", kc)
		require.NoError(t, r.Err, "stderr: %s", r.Stderr)
		var cm corev1.ConfigMap
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &cm), "stdout: %s", r.Stdout)
		assert.Equal(t, "ConfigMap", cm.Kind)
		assert.Equal(t, "beta", cm.Name)
		assert.Equal(t, ns, cm.Namespace)
		assert.Equal(t, map[string]string{"v": "2", "w": "3"}, cm.Data)
		assert.NotEmpty(t, cm.ResourceVersion)
		assert.Empty(t, cm.ManagedFields, "managedFields are dropped without --show-managed-fields")
	})

	t.Run("unknown resource", func(t *testing.T) {
		r := run(t, kubecachePkg, "get", "nosuchthings", "-n", ns, kc)
		var exit *exec.ExitError
		require.ErrorAs(t, r.Err, &exit, "stdout: %s", r.Stdout)
		assert.Equal(t, 1, exit.ExitCode())
		assert.Contains(t, r.Stderr, `the server doesn't have a resource type "nosuchthings"`)
		assert.Empty(t, r.Stdout)
	})
}

// watchLine is one event `kubecache watch -o json` prints.
type watchLine struct {
	Type            string `json:"type"`
	Key             string `json:"key"`
	ResourceVersion string `json:"resourceVersion"`
	Initial         bool   `json:"initial"`
}

// TestKubecacheWatch runs `kubecache watch configmaps -o json` against the
// target: the ConfigMap already there arrives as an initial ADDED, then a
// create, an update and a delete arrive in order, and Ctrl-C ends it with
// a summary on stderr.
func TestKubecacheWatch(t *testing.T) {
	tgt := target.Get(t)
	cs := tgt.Clientset(t)
	ns := tgt.Namespace(t)
	createCM(t, cs, ns, "before", nil, map[string]string{"v": "1"})

	p := start(t, true, kubecachePkg, "watch", "configmaps", "-n", ns, "-o", "json", "--kubeconfig="+tgt.KubeconfigPath)
	// next reads events until one for a test ConfigMap (a cluster may add
	// its own to a new namespace).
	next := func(what string) watchLine {
		t.Helper()
		for {
			l := p.next(t, time.Minute, what)
			var ev watchLine
			require.NoError(t, json.Unmarshal([]byte(l), &ev), "stdout line %q", l)
			if ev.Key != ns+"/kube-root-ca.crt" {
				return ev
			}
		}
	}
	first := next("the initial list")
	assert.Equal(t, watchLine{Type: "ADDED", Key: ns + "/before", ResourceVersion: first.ResourceVersion, Initial: true}, first)
	// The watch may not have started yet: a change made before it starts
	// is still delivered, since it watches from the list's version.

	createCM(t, cs, ns, "after", nil, map[string]string{"v": "1"})
	ev := next("ADDED after")
	assert.Equal(t, "ADDED", ev.Type)
	assert.Equal(t, ns+"/after", ev.Key)
	assert.False(t, ev.Initial)

	_, err := cs.CoreV1().ConfigMaps(ns).Patch(t.Context(), "before", types.MergePatchType, []byte(`{"data":{"v":"2"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	ev = next("MODIFIED before")
	assert.Equal(t, "MODIFIED", ev.Type)
	assert.Equal(t, ns+"/before", ev.Key)
	assert.NotEqual(t, first.ResourceVersion, ev.ResourceVersion)

	require.NoError(t, cs.CoreV1().ConfigMaps(ns).Delete(t.Context(), "after", metav1.DeleteOptions{}))
	ev = next("DELETED after")
	assert.Equal(t, "DELETED", ev.Type)
	assert.Equal(t, ns+"/after", ev.Key)

	require.NoError(t, p.Stop(), "kubecache watch ends cleanly on Ctrl-C; stderr:\n%s", p.Stderr())
	stderr := p.Stderr()
	assert.Contains(t, stderr, "watched configmaps for ")
	assert.Contains(t, stderr, "1 object held")
	assert.Contains(t, stderr, "2 added (1 from the initial list), 1 modified, 1 deleted")
}
