package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/internal/await"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/watch"
)

// readyLine matches serve's one line when ready.
var readyLine = regexp.MustCompile(`kubecache serve: fake API server ready at (\S+) \((.*)\)`)

// serveReady starts serve with args and waits for its ready line; it
// returns the running command and its URL.
func serveReady(t *testing.T, args ...string) (*background, string) {
	t.Helper()
	b := start(t, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	b.stdout.waitFor(t, "the ready line", func(s string) bool { return readyLine.MatchString(s) })
	return b, readyLine.FindStringSubmatch(b.stdout.String())[1]
}

func TestServeLoadsManifestsAndServesGet(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(`
apiVersion: v1
kind: ConfigMap
metadata: {name: from-file, namespace: default}
data: {k: v}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"from-json","namespace":"shop"}}`), 0o600))
	kc := filepath.Join(t.TempDir(), "kubeconfig")

	b, url := serveReady(t, "--kubeconfig-out", kc, "--load", dir)
	assert.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	assert.Contains(t, b.stdout.String(), "(kubeconfig "+kc+")")

	r := runCommand(t, "get", "cm", "-A", "-o", "name", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	assert.Equal(t, "configmap/from-file\nconfigmap/from-json\n", r.stdout)

	require.NoError(t, b.stop(), "serve ends cleanly when its context ends (SIGINT, SIGTERM)")
	assert.True(t, strings.HasSuffix(b.stdout.String(), "kubecache serve: shutting down\n"), b.stdout.String())
}

func TestServeTLSTokenAndAdmin(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	b, url := serveReady(t, "--tls", "--token", "s3cret", "--admin", "--kubeconfig-out", kc)
	assert.True(t, strings.HasPrefix(url, "https://127.0.0.1:"), url)

	r := runCommand(t, "get", "ns", "default", "-o", "name", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	assert.Equal(t, "namespace/default\n", r.stdout)

	// The admin endpoint takes the same token.
	client := kubeconfigClient(t, kc)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	body, err := client.Get().AbsPath("/kubecache-admin/state").Do(ctx).Raw()
	require.NoError(t, err)
	assert.Contains(t, string(body), "resourceVersion")

	// A wrong token is refused.
	wrong := filepath.Join(t.TempDir(), "wrong")
	data, err := os.ReadFile(kc)
	require.NoError(t, err)
	require.Contains(t, string(data), "s3cret")
	require.NoError(t, os.WriteFile(wrong, []byte(strings.ReplaceAll(string(data), "s3cret", "guess")), 0o600))
	r = runCommand(t, "get", "ns", "--kubeconfig", wrong)
	require.Error(t, r.err)
	assert.Equal(t, "error: You must be logged in to the server (Unauthorized)\n", r.stderr)

	require.NoError(t, b.stop())
}

func TestServeLogsRequests(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	b, _ := serveReady(t, "-v", "--kubeconfig-out", kc)
	r := runCommand(t, "get", "ns", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	b.stderr.waitForText(t, "path=/api/v1/namespaces", 1)
	require.NoError(t, b.stop())
}

func TestServeErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	r := runCommand(t, "serve", "--listen", ln.Addr().String())
	require.Error(t, r.err)
	assert.Contains(t, r.stderr, "address already in use")
	assert.Contains(t, r.stderr, "--listen 127.0.0.1:0 picks a free one")

	r = runCommand(t, "serve", "--listen", "127.0.0.1:0", "--load", filepath.Join(t.TempDir(), "missing.yaml"))
	require.Error(t, r.err)
	assert.Contains(t, r.stderr, "error: load manifests: ")
	assert.Contains(t, r.stderr, "missing.yaml")

	r = runCommand(t, "serve", "extra")
	require.Error(t, r.err)
	assert.Contains(t, r.stderr, `"kubecache serve" takes no arguments, got 1: extra`)
}

// TestServeWithKubectl runs kubectl against the served fake server.
func TestServeWithKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed; skipping the kubectl check of kubecache serve")
	}
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	b, _ := serveReady(t, "--kubeconfig-out", kc)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", kc, "--cache-dir", t.TempDir(), "get", "namespaces", "-o", "name")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "namespace/kube-system")
	require.NoError(t, b.stop())
}

// TestServeTLSPublishesRootCA: with TLS and the serviceaccount
// controller, every namespace gets the kube-root-ca.crt ConfigMap holding
// the CA the kubeconfig trusts, as a real controller manager publishes
// the apiserver's CA for pods.
func TestServeTLSPublishesRootCA(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	b, _ := serveReady(t, "--tls", "--controllers=serviceaccount", "--kubeconfig-out", kc)
	cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: kc})
	require.NoError(t, err)
	require.NotEmpty(t, cfg.TLS.CAData, "the kubeconfig holds the CA")
	client := kubeconfigClient(t, kc)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	w, err := rest.WatchAs[*api.ConfigMap](ctx, client.Get().Namespace("default").Resource("configmaps").Param("fieldSelector", "metadata.name=kube-root-ca.crt"))
	require.NoError(t, err)
	defer w.Stop()
	ev := await.Receive(t, w.ResultChan(), testTimeout)
	require.NoError(t, ev.Err)
	assert.Equal(t, watch.Added, ev.Type)
	assert.Equal(t, map[string]string{"ca.crt": string(cfg.TLS.CAData)}, ev.Object.Data)
	require.NoError(t, b.stop())
}
