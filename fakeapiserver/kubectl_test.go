package fakeapiserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectl against the fake server: the real client is the judge of
// whether the server is faithful enough.

type kubectl struct {
	t          *testing.T
	kubeconfig string
	cacheDir   string
	dir        string
}

func newKubectl(t *testing.T, s *Server) *kubectl {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed; skipping the kubectl tests")
	}
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	require.NoError(t, s.WriteKubeconfig(kc))
	return &kubectl{t: t, kubeconfig: kc, cacheDir: filepath.Join(dir, "cache"), dir: dir}
}

// run runs kubectl and returns stdout, failing the test on error.
func (k *kubectl) run(args ...string) string {
	k.t.Helper()
	out, errOut, err := k.try(args...)
	require.NoError(k.t, err, "kubectl %s\nstdout: %s\nstderr: %s", strings.Join(args, " "), out, errOut)
	return out
}

func (k *kubectl) try(args ...string) (string, string, error) {
	return k.runEnv(nil, args...)
}

func (k *kubectl) file(name, content string) string {
	p := filepath.Join(k.dir, name)
	require.NoError(k.t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestKubectlAPIResourcesMatchesRealServer(t *testing.T) {
	want, err := os.ReadFile("../e2e/testdata/real/api-resources-wide.txt")
	if err != nil {
		t.Skip("no captured api-resources output")
	}
	s := NewForTest(t, Options{})
	k := newKubectl(t, s)
	assert.Equal(t, string(want), k.run("api-resources", "-o", "wide"))
}

func TestKubectlWorkflow(t *testing.T) {
	s := NewForTest(t, Options{TLS: true, Tokens: map[string]User{"tok": {Name: "admin"}}})
	k := newKubectl(t, s)

	out := k.run("get", "namespaces", "-o", "name")
	assert.Equal(t, "namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\n", out)

	// kubectl's generators send protobuf bodies.
	assert.Equal(t, "configmap/settings created\n", k.run("create", "configmap", "settings", "--from-literal=color=blue"))
	_, errOut, err := k.try("create", "configmap", "settings", "--from-literal=color=blue")
	require.Error(t, err)
	assert.Equal(t, "error: failed to create configmap: configmaps \"settings\" already exists\n", errOut)

	cm := k.file("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {color: blue}\n")
	_, errOut, err = k.try("create", "-f", cm)
	require.Error(t, err)
	assert.Contains(t, errOut, `configmaps "settings" already exists`)

	out = k.run("get", "configmap", "settings", "-o", "jsonpath={.data.color}")
	assert.Equal(t, "blue", out)
	k.run("label", "configmap", "settings", "tier=web")
	out = k.run("get", "configmaps", "-l", "tier=web", "-o", "name")
	assert.Equal(t, "configmap/settings\n", out)

	deploy := k.file("deploy.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
`)
	out = k.run("create", "-f", deploy)
	assert.Equal(t, "deployment.apps/web created\n", out)
	_, errOut, err = k.try("create", "-f", deploy)
	require.Error(t, err)
	assert.Contains(t, errOut, `Error from server (AlreadyExists): error when creating "`+deploy+`": deployments.apps "web" already exists`)

	applied := k.file("apply.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
data: {a: "1"}
`)
	assert.Equal(t, "configmap/applied created\n", k.run("apply", "-f", applied))
	assert.Equal(t, "configmap/applied unchanged\n", k.run("apply", "-f", applied))
	changed := k.file("apply2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata: {a: \"2\"}\n")
	assert.Equal(t, "configmap/applied configured\n", k.run("apply", "-f", changed), "client-side apply sends a strategic merge patch")
	assert.Equal(t, "2", k.run("get", "configmap", "applied", "-o", "jsonpath={.data.a}"))

	out = k.run("get", "deploy", "web", "-o", "jsonpath={.spec.replicas} {.metadata.generation}")
	assert.Equal(t, "2 1", out)

	// delete waits for the object to go, through a watch on metadata.name.
	assert.Equal(t, "configmap \"settings\" deleted\n", k.run("delete", "configmap", "settings"))
	_, errOut, err = k.try("get", "configmap", "settings")
	require.Error(t, err)
	assert.Contains(t, errOut, `configmaps "settings" not found`)
}

func TestKubectlCustomResources(t *testing.T) {
	s := NewForTest(t, Options{})
	k := newKubectl(t, s)
	crd := k.file("crd.json", widgetCRD)
	k.run("apply", "-f", crd)
	w := k.file("w.yaml", `apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
spec: {color: red}
`)
	assert.Equal(t, "widget.example.com/w1 created\n", k.run("apply", "-f", w))
	out := k.run("get", "wd", "-o", "name")
	assert.Equal(t, "widget.example.com/w1\n", out)
	out = k.run("get", "widgets", "--field-selector", "spec.color=red", "-o", "name")
	assert.Equal(t, "widget.example.com/w1\n", out)
}

func TestKubectlExplainReadsOpenAPI(t *testing.T) {
	s := NewForTest(t, Options{})
	k := newKubectl(t, s)
	out := k.run("explain", "deployment.spec.replicas")
	assert.Contains(t, out, "KIND:")
	assert.Contains(t, out, "Deployment")
	assert.Contains(t, out, "replicas")
}

func TestKubectlGetPrintsTables(t *testing.T) {
	s := NewForTest(t, Options{})
	k := newKubectl(t, s)
	cm := k.file("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {color: blue, size: large, mode: dark}\n")
	k.run("create", "-f", cm)
	deploy := k.file("deploy.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: nginx}
      - {name: side, image: busybox}
`)
	k.run("create", "-f", deploy)

	lines := strings.Split(strings.TrimSpace(k.run("get", "configmaps")), "\n")
	require.Len(t, lines, 2, "header and one row: %q", lines)
	assert.Equal(t, []string{"NAME", "DATA", "AGE"}, strings.Fields(lines[0]))
	row := strings.Fields(lines[1])
	require.Len(t, row, 3)
	assert.Equal(t, []string{"settings", "3"}, row[:2])

	lines = strings.Split(strings.TrimSpace(k.run("get", "deployments", "-o", "wide")), "\n")
	require.Len(t, lines, 2, "header and one row: %q", lines)
	assert.Equal(t, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}, strings.Fields(lines[0]))
	row = strings.Fields(lines[1])
	require.Len(t, row, 8)
	assert.Equal(t, []string{"web", "web,side", "nginx,busybox", "app=web"}, []string{row[0], row[5], row[6], row[7]})

	// A single object is a one-row Table too.
	lines = strings.Split(strings.TrimSpace(k.run("get", "configmap", "settings")), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, []string{"NAME", "DATA", "AGE"}, strings.Fields(lines[0]))
}
