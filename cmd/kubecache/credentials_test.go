package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// Credentials never appear in what the command prints: its output, its
// --explain narration, its warnings and its errors, whatever the server
// answers (200, 401, 403, a 401 in the middle of a watch) and however the
// kubeconfig authenticates (a token, a client certificate, an exec plugin
// that succeeds or prints something wrong).

// The secrets of this test: each is searched for in every output.
const (
	cliToken      = "kc-cli-token-51c0ffee"
	cliDevToken   = "kc-cli-token-dev-9d2b"
	cliExecToken  = "kc-exec-token-77aa01"
	cliWrongToken = "kc-wrong-token-3e3e"
)

// execPluginEnv makes the test binary act as an exec credential plugin
// (see TestMain): its value is the mode — token (an ExecCredential with
// PLUGIN_TOKEN), wrongkind (the token in an object of another kind),
// garbage (the token in output that is not JSON).
const execPluginEnv = "KUBECACHE_CLI_TEST_EXEC_PLUGIN"

// execPlugin prints what the mode asks for and returns the exit code.
func execPlugin(mode string) int {
	token := os.Getenv("PLUGIN_TOKEN")
	var info struct {
		APIVersion string `json:"apiVersion"`
	}
	_ = json.Unmarshal([]byte(os.Getenv("KUBERNETES_EXEC_INFO")), &info)
	switch mode {
	case "garbage":
		fmt.Printf(`{"status":{"token":%q`, token)
		return 0
	case "wrongkind":
		fmt.Printf(`{"apiVersion":%q,"kind":"Secret","status":{"token":%q}}`, info.APIVersion, token)
		return 0
	}
	fmt.Printf(`{"apiVersion":%q,"kind":"ExecCredential","status":{"token":%q}}`, info.APIVersion, token)
	return 0
}

// withUser returns the kubeconfig kc with its user replaced by user (YAML
// lines under "user:", indented by four spaces).
func withUser(t *testing.T, kc []byte, user string) string {
	t.Helper()
	s := string(kc)
	from, to := strings.Index(s, "users:\n"), strings.Index(s, "contexts:\n")
	require.True(t, from >= 0 && to > from, "unexpected kubeconfig:\n%s", s)
	return s[:from] + "users:\n- name: fakeapiserver\n  user:\n" + user + s[to:]
}

// writeKubeconfig writes kc to a new file and returns its path.
func writeKubeconfig(t *testing.T, kc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(kc), 0o600))
	return path
}

// execUser is the user block of an exec plugin in the given mode.
func execUser(t *testing.T, mode, token string) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	return fmt.Sprintf(`    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: %s
      interactiveMode: Never
      env:
      - name: %s
        value: %s
      - name: PLUGIN_TOKEN
        value: %s
`, self, execPluginEnv, mode, token)
}

func TestNoCredentialInAnyOutput(t *testing.T) {
	requests := newSyncBuffer()
	tokSrv := fakeapiserver.NewForTest(t, fakeapiserver.Options{
		TLS:    true,
		Logger: slog.New(slog.NewTextHandler(requests, nil)),
		Tokens: map[string]fakeapiserver.User{
			cliToken:     {Name: "admin", Groups: []string{"system:masters"}},
			cliDevToken:  {Name: "dev"},
			cliExecToken: {Name: "exec-user", Groups: []string{"system:masters"}},
		},
		Forbid: []fakeapiserver.ForbidRule{{User: "dev", Match: fakeapiserver.Match{Resource: "configmaps"}}},
	})
	load(t, tokSrv, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\ndata:\n  k: v\n")
	certSrv := fakeapiserver.NewForTest(t, fakeapiserver.Options{TLS: true, ClientCertificates: true})
	load(t, certSrv, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n")

	// The client key, as the kubeconfig holds it and as PEM.
	certKC := string(certSrv.Kubeconfig())
	var keyData string
	for line := range strings.SplitSeq(certKC, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "client-key-data: "); ok {
			keyData = v
		}
	}
	require.NotEmpty(t, keyData, "the cert server's kubeconfig has no client key:\n%s", certKC)
	keyPEM, err := base64.StdEncoding.DecodeString(keyData)
	require.NoError(t, err)
	secrets := []string{cliToken, cliDevToken, cliExecToken, cliWrongToken, keyData}
	for line := range strings.SplitSeq(string(keyPEM), "\n") {
		if len(line) > 16 && !strings.HasPrefix(line, "-----") {
			secrets = append(secrets, line)
		}
	}

	tokKC := tokSrv.Kubeconfig()
	token := func(tok string) string { return writeKubeconfig(t, withUser(t, tokKC, "    token: "+tok+"\n")) }
	exec := func(mode, tok string) string { return writeKubeconfig(t, withUser(t, tokKC, execUser(t, mode, tok))) }
	rows := []struct {
		name, kubeconfig string
		args             []string
		ok               bool
		want             string // in stderr
	}{
		{"a token, get", token(cliToken), []string{"get", "cm", "--explain"}, true, "REPLACE"},
		{"a token, get -o yaml", token(cliToken), []string{"get", "cm", "-o", "yaml"}, true, ""},
		{"a wrong token (401), get", token(cliWrongToken), []string{"get", "cm", "--explain"}, false, "Unauthorized"},
		{"a wrong token (401), watch", token(cliWrongToken), []string{"watch", "cm", "--explain"}, false, "Unauthorized"},
		{"a forbidden user (403), get", token(cliDevToken), []string{"get", "cm", "--explain"}, false, "Forbidden"},
		{"a forbidden user (403), watch", token(cliDevToken), []string{"watch", "cm"}, false, "Forbidden"},
		{"a client certificate, get", writeKubeconfig(t, certKC), []string{"get", "cm", "--explain"}, true, "REPLACE"},
		{"an exec plugin, get", exec("token", cliExecToken), []string{"get", "cm", "--explain"}, true, "REPLACE"},
		{"an exec plugin with a wrong token (401), get", exec("token", cliWrongToken), []string{"get", "cm", "--explain"}, false, "Unauthorized"},
		{"an exec plugin printing another kind, get", exec("wrongkind", cliExecToken), []string{"get", "cm", "--explain"}, false, `output kind is "Secret"`},
		{"an exec plugin printing garbage, get", exec("garbage", cliExecToken), []string{"get", "cm", "--explain"}, false, "not an ExecCredential"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			res := runCommand(t, append(r.args, "--kubeconfig", r.kubeconfig)...)
			if r.ok {
				require.NoError(t, res.err, res.stderr)
			} else {
				require.Error(t, res.err)
			}
			assert.Contains(t, res.stderr, r.want)
			for _, out := range []string{res.stdout, res.stderr, fmt.Sprintf("%v %+v %#v", res.err, res.err, res.err)} {
				for _, s := range secrets {
					assert.NotContains(t, out, s)
				}
			}
		})
	}

	// A 401 in the middle of a watch, narrated and warned about.
	n401 := strings.Count(requests.String(), "status=401")
	for _, explain := range []bool{true, false} {
		t.Run(fmt.Sprintf("a 401 mid-watch, explain=%v", explain), func(t *testing.T) {
			args := []string{"watch", "cm", "--kubeconfig", token(cliToken)}
			if explain {
				args = append(args, "--explain")
			}
			b := start(t, args...)
			b.stdout.waitForText(t, "default/a", 1)
			// Mid-watch means after the sync: a stream cut before it makes
			// the command fail as kubectl would, and no 401 ever comes.
			b.stderr.waitForText(t, "synced:", 1)
			tokSrv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Code: 401, Count: 1})
			tokSrv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutClean)
			// The server answered the watch 401, and the command said so.
			requests.waitForText(t, "status=401", n401+1)
			n401++
			b.stderr.waitForText(t, "Unauthorized", 1)
			// The command keeps watching after the 401 (it had synced), so
			// stopping it is clean; either way the outputs are what this
			// test checks.
			if err := b.stop(); err != nil {
				assert.ErrorContains(t, err, "Unauthorized")
			}
			for _, out := range []string{b.stdout.String(), b.stderr.String()} {
				for _, s := range secrets {
					assert.NotContains(t, out, s)
				}
			}
		})
	}
}
