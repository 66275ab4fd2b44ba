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

	"github.com/stretchr/testify/assert"

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

// TestKubectl runs kubectl's everyday commands against both servers with
// -v=9 — apply (client-side: create, then change), get, get -o yaml, get -w
// (bounded by --request-timeout), edit (a scripted editor), label, apply
// --server-side, scale and delete — and compares the requests it made
// (method, path, query with volatile values masked), the status codes, the
// Warning headers and the answers' bodies.
func TestKubectl(t *testing.T) {
	s := pair(t)
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	t.Parallel()
	c := s.NewCase(t, "e2e-kubectl")
	tmp := t.TempDir()
	configMap := func(v string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: k\ndata:\n  v: %q\n", v)
	}
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 1\n" +
		"  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n" +
		"    spec:\n      containers:\n      - name: c\n        image: registry.k8s.io/pause:3.10\n"
	editor := filepath.Join(tmp, "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/v: \"2\"/v: \"3\"/' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kubeconfigs := map[*Side]string{c.Real: target.Get(t).KubeconfigPath, c.Fake: pairFake.KubeconfigPath}
	editorEnv := []string{"KUBE_EDITOR=" + editor, "EDITOR=" + editor}

	steps := []struct {
		name  string
		stdin string
		env   []string
		args  []string
		// out, when set, must be in kubectl's output on both sides.
		out string
	}{
		{"apply (create)", configMap("1"), nil, []string{"apply", "-f", "-"}, "configmap/k created"},
		{"get", "", nil, []string{"get", "configmaps"}, "k "},
		{"get one as yaml", "", nil, []string{"get", "configmap", "k", "-o", "yaml"}, `v: "1"`},
		{"apply (change)", configMap("2"), nil, []string{"apply", "-f", "-"}, "configmap/k configured"},
		{"apply (unchanged)", configMap("2"), nil, []string{"apply", "-f", "-"}, "configmap/k unchanged"},
		{"edit", "", editorEnv, []string{"edit", "configmap", "k"}, "configmap/k edited"},
		{"label", "", nil, []string{"label", "configmap", "k", "tier=web"}, "configmap/k labeled"},
		{"get -l", "", nil, []string{"get", "configmaps", "-l", "tier=web", "-o", "name"}, "configmap/k"},
		{"get -w", "", nil, []string{"get", "configmaps", "-w", "--request-timeout=3s"}, ""},
		{"get one -w", "", nil, []string{"get", "configmap", "k", "-w", "--request-timeout=3s"}, ""},
		{"apply --server-side", configMap("4"), nil, []string{"apply", "--server-side", "--force-conflicts", "-f", "-"}, "configmap/k serverside-applied"},
		{"apply deployment", deployment, nil, []string{"apply", "-f", "-"}, "deployment.apps/d created"},
		{"scale", "", nil, []string{"scale", "deployment", "d", "--replicas=3"}, "deployment.apps/d scaled"},
		{"delete", "", nil, []string{"delete", "configmap", "k"}, `configmap "k" deleted`},
		{"get deleted", "", nil, []string{"get", "configmap", "k"}, ""},
	}
	for _, st := range steps {
		var mu sync.Mutex
		logs := map[*Side][]Exchange{}
		outs := map[*Side]string{}
		c.both(func(sd *Side) {
			cache := filepath.Join(tmp, "cache-"+sd.Name)
			ex, out, _ := kubectlRun(c.Ctx, kubeconfigs[sd], cache, c.NS, st.env, st.stdin, st.args...)
			mu.Lock()
			logs[sd] = ex
			outs[sd] = out
			mu.Unlock()
		})
		if st.out != "" && !strings.Contains(outs[c.Real], st.out) {
			c.T.Errorf("kubectl %s on the real server: output %q, want it to hold %q", st.name, outs[c.Real], st.out)
		} else if st.out != "" && !strings.Contains(outs[c.Fake], st.out) {
			c.mu.Lock()
			c.diffs = append(c.diffs, Difference{Where: c.T.Name() + ": kubectl " + st.name, Path: "output", Real: q(outs[c.Real]), Fake: q(outs[c.Fake])})
			c.mu.Unlock()
		}
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
	c.srv.compared.Add(int64(len(r)))
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
			req := fmt.Sprintf("%s %s", r[i].Method, volatileQuery(r[i].Path))
			if rw, fw := strings.Join(r[i].Warnings, " | "), strings.Join(f[i].Warnings, " | "); rw != fw {
				diffs = append(diffs, Difference{Where: where, Path: req + ": header Warning", Real: q(rw), Fake: q(fw)})
			}
			rj, fj := isJSON([]byte(r[i].Body)), isJSON([]byte(f[i].Body))
			switch {
			case rj && fj:
				diffs = append(diffs, diffJSON(where, req, []byte(r[i].Body), []byte(f[i].Body), CompareOptions{})...)
			case rj != fj:
				diffs = append(diffs, Difference{Where: where, Path: req + ": body", Real: abbrev([]byte(r[i].Body)), Fake: abbrev([]byte(f[i].Body))})
			}
		}
	}
	c.mu.Lock()
	c.diffs = append(c.diffs, diffs...)
	c.mu.Unlock()
}

// kubectlLog is a kubectl v1.32 -v=9 log of one apply: a GET answered 404
// with a one-line body, then a POST whose request and response bodies are
// blocks, with a Warning header.
const kubectlLog = `I1130 02:59:43.833447   16990 helper.go:105] "Request Body" body=""
I1130 02:59:43.833559   16990 round_trippers.go:473] curl -v -XGET  -H "Accept: application/json" 'https://127.0.0.1:20622/api/v1/namespaces/default/configmaps/k'
I1130 02:59:43.836938   16990 round_trippers.go:560] GET https://127.0.0.1:20622/api/v1/namespaces/default/configmaps/k 404 Not Found in 3 milliseconds
I1130 02:59:43.837038   16990 helper.go:105] "Response Body" body="{\"kind\":\"Status\",\"reason\":\"NotFound\",\"code\":404}"
I1130 02:59:43.837470   16990 helper.go:246] "Request Body" body=<
	{"apiVersion":"v1",
	"kind":"ConfigMap"}
 >
I1130 02:59:43.837568   16990 round_trippers.go:473] curl -v -XPOST  'https://127.0.0.1:20622/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply'
I1130 02:59:43.841862   16990 round_trippers.go:560] POST https://127.0.0.1:20622/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 201 Created in 4 milliseconds
I1130 02:59:43.841910   16990 round_trippers.go:584] Response Headers:
I1130 02:59:43.841911   16990 round_trippers.go:587]     Warning: 299 - "unknown field \"bogus\""
I1130 02:59:43.842116   16990 helper.go:246] "Response Body" body=<
	{"kind":"ConfigMap"}
 >
configmap/k created
I1130 02:59:46.000000   16990 round_trippers.go:560] GET https://127.0.0.1:20622/api/v1/namespaces/default/configmaps?watch=true  in 3000 milliseconds
`

func TestParseKubectlLog(t *testing.T) {
	got := ParseKubectlLog(kubectlLog)
	want := []Exchange{
		{Method: "GET", Path: "/api/v1/namespaces/default/configmaps/k", Status: 404,
			Body: `{"kind":"Status","reason":"NotFound","code":404}`},
		{Method: "POST", Path: "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply&fieldValidation=Strict",
			RequestBody: "{\"apiVersion\":\"v1\",\n\"kind\":\"ConfigMap\"}", Status: 201,
			Warnings: []string{`299 - "unknown field \"bogus\""`}, Body: `{"kind":"ConfigMap"}`},
		{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?watch=true"},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, "/x?continue=%2A&limit=1&resourceVersion=%2A", volatileQuery("/x?limit=1&resourceVersion=5&continue=abc"))
}

// FuzzParseKubectlLog checks that no log, however garbled, panics the
// parser or yields an exchange without a method and a path.
func FuzzParseKubectlLog(f *testing.F) {
	f.Add(kubectlLog)
	f.Add("I1130 02:59:43.837470   16990 helper.go:246] \"Request Body\" body=<\n\t{\n")
	f.Add("I1130 02:59:43.837470   16990 helper.go:246] \"Response Body\" body=\"\\x\"")
	f.Fuzz(func(t *testing.T, log string) {
		for _, x := range ParseKubectlLog(log) {
			if x.Method == "" || !strings.HasPrefix(x.Path, "/") && x.Path != "" {
				t.Fatalf("exchange %+v from %q", x, log)
			}
		}
	})
}
