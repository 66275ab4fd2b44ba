//go:build e2e_unverified

package differential

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// kubectlRun runs kubectl -v=9 against one side and returns its log's
// exchanges. Each side has its own discovery cache directory.
func kubectlRun(ctx context.Context, kubeconfig, cacheDir, ns string, env []string, stdin string, args ...string) ([]Exchange, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	full := append([]string{"--kubeconfig", kubeconfig, "--cache-dir", cacheDir, "-n", ns, "-v=9"}, args...)
	cmd := exec.CommandContext(ctx, "kubectl", full...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr, stdout strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = &stdout
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return ParseKubectlLog(stderr.String()), stdout.String(), err
}

// isDocument reports whether a path reads discovery or OpenAPI, whose
// documents differ by design (compared by status only).
func isDocument(p string) bool {
	p, _, _ = strings.Cut(p, "?")
	n := strings.Count(p, "/")
	return p == "/api" || p == "/apis" || p == "/version" || strings.HasPrefix(p, "/openapi/") ||
		strings.HasPrefix(p, "/api/") && n == 2 || strings.HasPrefix(p, "/apis/") && n <= 3
}

// TestKubectl runs kubectl get, apply (create, then change), edit, get -w
// and delete against both servers with -v=9, and compares the requests it
// made (method, path, query names) and the answers it got.
func TestKubectl(t *testing.T) {
	s := pair(t)
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	t.Parallel()
	c := s.NewCase(t, "e2e-kubectl")
	tmp := t.TempDir()
	manifest := func(v string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: k\ndata:\n  v: %q\n", v)
	}
	editor := filepath.Join(tmp, "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/v: \"2\"/v: \"3\"/; s/v: \"2\"$/v: \"3\"/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kubeconfigs := map[*Side]string{c.Real: target.Get(t).KubeconfigPath, c.Fake: pairFake.KubeconfigPath}

	steps := []struct {
		name  string
		stdin string
		env   []string
		args  []string
	}{
		{"apply (create)", manifest("1"), nil, []string{"apply", "-f", "-"}},
		{"get", "", nil, []string{"get", "configmaps"}},
		{"get one as yaml", "", nil, []string{"get", "configmap", "k", "-o", "yaml"}},
		{"apply (change)", manifest("2"), nil, []string{"apply", "-f", "-"}},
		{"edit", "", []string{"KUBE_EDITOR=" + editor, "EDITOR=" + editor}, []string{"edit", "configmap", "k"}},
		{"get -w", "", nil, []string{"get", "configmaps", "-w", "--request-timeout=3s"}},
		{"get one -w", "", nil, []string{"get", "configmap", "k", "-w", "--request-timeout=3s"}},
		{"delete", "", nil, []string{"delete", "configmap", "k"}},
	}
	for _, st := range steps {
		var mu sync.Mutex
		logs := map[*Side][]Exchange{}
		c.both(func(sd *Side) {
			cache := filepath.Join(tmp, "cache-"+sd.Name)
			ex, _, _ := kubectlRun(c.Ctx, kubeconfigs[sd], cache, c.NS, st.env, st.stdin, st.args...)
			mu.Lock()
			logs[sd] = ex
			mu.Unlock()
		})
		compareExchanges(c, "kubectl "+st.name, logs[c.Real], logs[c.Fake])
	}
}

// compareExchanges records how two kubectl runs differ: the sequence of
// requests (discovery and OpenAPI left out: the fake server caches and
// serves different documents), then status and body of each pair.
func compareExchanges(c *Case, step string, real, fake []Exchange) {
	filter := func(xs []Exchange) []Exchange {
		var out []Exchange
		for _, x := range xs {
			if !isDocument(x.Path) {
				out = append(out, x)
			}
		}
		return out
	}
	seq := func(xs []Exchange) string {
		var parts []string
		for _, x := range xs {
			parts = append(parts, fmt.Sprintf("%s %s → %d", x.Method, volatileQuery(x.Path), x.Status))
		}
		return strings.Join(parts, "; ")
	}
	r, f := filter(real), filter(fake)
	where := c.T.Name() + ": " + step
	if len(r) == 0 {
		c.T.Errorf("%s: kubectl made no request to the real server", where)
		return
	}
	var diffs []Difference
	if seq(r) != seq(f) {
		diffs = append(diffs, Difference{Where: where, Path: "requests", Real: seq(r), Fake: seq(f)})
	} else {
		for i := range r {
			if r[i].Method == "GET" && strings.Contains(r[i].Path, "watch=true") {
				continue // a watch's body is the events kubectl logged, if any
			}
			if isJSON([]byte(r[i].Body)) && isJSON([]byte(f[i].Body)) {
				diffs = append(diffs, diffJSON(where, fmt.Sprintf("%s %s", r[i].Method, volatileQuery(r[i].Path)), []byte(r[i].Body), []byte(f[i].Body), CompareOptions{})...)
			}
		}
	}
	c.mu.Lock()
	c.diffs = append(c.diffs, diffs...)
	c.mu.Unlock()
}
