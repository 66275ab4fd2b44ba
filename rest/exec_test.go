package rest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePluginEnv makes the test binary act as an exec credential plugin. Its
// behaviour is set by more variables, passed through ExecConfig.Env as a
// kubeconfig would:
//
//	PLUGIN_DIR     where it appends one line per run ("runs") and saves
//	               KUBERNETES_EXEC_INFO ("info.json")
//	PLUGIN_MODE    token (default), cert, fail, garbage, huge, wrongversion
//	PLUGIN_EXPIRY  expirationTimestamp to print, if any
//	PLUGIN_CERT, PLUGIN_KEY  PEM files for cert mode
const fakePluginEnv = "KUBECACHE_TEST_EXEC_PLUGIN"

func fakePlugin() int {
	dir := os.Getenv("PLUGIN_DIR")
	info := os.Getenv("KUBERNETES_EXEC_INFO")
	if err := os.WriteFile(filepath.Join(dir, "info.json"), []byte(info), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	f, err := os.OpenFile(filepath.Join(dir, "runs"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	f.WriteString("run\n")
	f.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "runs"))
	n := strings.Count(string(b), "\n")

	var in struct {
		APIVersion string `json:"apiVersion"`
	}
	json.Unmarshal([]byte(info), &in)
	status := map[string]any{}
	if exp := os.Getenv("PLUGIN_EXPIRY"); exp != "" {
		status["expirationTimestamp"] = exp
	}
	switch os.Getenv("PLUGIN_MODE") {
	case "fail":
		fmt.Fprintln(os.Stderr, "error: the login session has expired; run 'cloud login'")
		return 1
	case "garbage":
		fmt.Print(`{"kind":"ExecCredential","status":{"token":"SECRET-IN-GARBAGE"`)
		return 0
	case "huge":
		// A valid ExecCredential, padded past the output bound.
		fmt.Printf(`{"apiVersion":%q,"kind":"ExecCredential","status":{"token":"SECRET-IN-HUGE"},"pad":"%s"}`,
			in.APIVersion, strings.Repeat("x", maxExecOutput))
		return 0
	case "wrongversion":
		in.APIVersion = "client.authentication.k8s.io/v9"
		status["token"] = "SECRET-WRONG-VERSION"
	case "cert":
		cert, _ := os.ReadFile(os.Getenv("PLUGIN_CERT"))
		key, _ := os.ReadFile(os.Getenv("PLUGIN_KEY"))
		status["clientCertificateData"] = string(cert)
		status["clientKeyData"] = string(key)
	default:
		status["token"] = fmt.Sprintf("exec-token-%d", n)
	}
	out, _ := json.Marshal(map[string]any{"apiVersion": in.APIVersion, "kind": "ExecCredential", "status": status})
	os.Stdout.Write(out)
	return 0
}

// pluginConfig returns an ExecConfig running the test binary as a plugin
// that records its runs in a fresh directory.
func pluginConfig(t *testing.T, mode string, extra ...ExecEnvVar) (*ExecConfig, string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	env := []ExecEnvVar{{Name: fakePluginEnv, Value: "1"}, {Name: "PLUGIN_DIR", Value: dir}, {Name: "PLUGIN_MODE", Value: mode}}
	return &ExecConfig{
		APIVersion:      ExecAPIVersionV1,
		Command:         self,
		Env:             append(env, extra...),
		InteractiveMode: ExecInteractiveNever,
		InstallHint:     "see the docs",
	}, dir
}

func pluginRuns(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs"))
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), "\n")
}

func TestExecPluginTokenCachedAndRerunAfter401(t *testing.T) {
	p := getPKI(t)
	url, seen, accept := bearerServer(t, "exec-token-1")
	exec, dir := pluginConfig(t, "token")
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM}, Exec: exec})
	get := func() error { return c.Get().Resource("pods").Do(t.Context()).Error() }

	assert.Equal(t, 0, pluginRuns(t, dir), "the plugin runs on first use, not in NewClient")
	require.NoError(t, get())
	require.NoError(t, get())
	assert.Equal(t, "Bearer exec-token-1", (<-seen).auth)
	assert.Equal(t, 1, pluginRuns(t, dir), "the credential is cached")

	// The server stops accepting the token: one 401, then the plugin runs
	// again and the next request succeeds.
	accept("exec-token-2")
	err := get()
	assert.True(t, IsUnauthorized(err), "got %v", err)
	assert.Equal(t, 1, pluginRuns(t, dir))
	require.NoError(t, get())
	assert.Equal(t, 2, pluginRuns(t, dir))

	// What the plugin was told.
	var info map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "info.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &info))
	assert.Equal(t, ExecAPIVersionV1, info["apiVersion"])
	assert.Equal(t, "ExecCredential", info["kind"])
	assert.Equal(t, map[string]any{"interactive": false}, info["spec"], "no cluster without provideClusterInfo")
}

func TestExecPluginExpiry(t *testing.T) {
	url, _ := authServer(t, nil)
	clock := newFakeClock()
	exec, dir := pluginConfig(t, "token", ExecEnvVar{Name: "PLUGIN_EXPIRY", Value: clock.Now().Add(time.Hour).Format(time.RFC3339)})
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{Insecure: true}, Exec: exec, Clock: clock})
	get := func() error { return c.Get().Resource("pods").Do(t.Context()).Error() }
	require.NoError(t, get())
	clock.Step(59 * time.Minute)
	require.NoError(t, get())
	assert.Equal(t, 1, pluginRuns(t, dir))
	clock.Step(time.Minute)
	require.NoError(t, get())
	assert.Equal(t, 2, pluginRuns(t, dir), "an expired credential is fetched again")
}

func TestExecPluginClusterInfo(t *testing.T) {
	p := getPKI(t)
	url, seen := authServer(t, nil)
	exec, dir := pluginConfig(t, "token")
	exec.APIVersion = ExecAPIVersionV1beta1
	exec.ProvideClusterInfo = true
	exec.ClusterConfig = json.RawMessage(`{"audience":"kc"}`)
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM, ServerName: "kubernetes.default.svc"}, Exec: exec})
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	assert.Equal(t, "Bearer exec-token-1", (<-seen).auth)

	var info struct {
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			Interactive bool `json:"interactive"`
			Cluster     struct {
				Server        string          `json:"server"`
				TLSServerName string          `json:"tls-server-name"`
				CAData        []byte          `json:"certificate-authority-data"`
				Config        json.RawMessage `json:"config"`
			} `json:"cluster"`
		} `json:"spec"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "info.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &info))
	assert.Equal(t, ExecAPIVersionV1beta1, info.APIVersion)
	assert.False(t, info.Spec.Interactive)
	assert.Equal(t, url, info.Spec.Cluster.Server)
	assert.Equal(t, "kubernetes.default.svc", info.Spec.Cluster.TLSServerName)
	assert.Equal(t, p.caPEM, info.Spec.Cluster.CAData)
	assert.JSONEq(t, `{"audience":"kc"}`, string(info.Spec.Cluster.Config))
}

func TestExecPluginClientCertificate(t *testing.T) {
	p := getPKI(t)
	url, seen := authServer(t, nil)
	certDir := t.TempDir()
	certFile := writeFile(t, certDir, "c.crt", string(p.clientCert))
	keyFile := writeFile(t, certDir, "c.key", string(p.clientKey))
	exec, dir := pluginConfig(t, "cert", ExecEnvVar{Name: "PLUGIN_CERT", Value: certFile}, ExecEnvVar{Name: "PLUGIN_KEY", Value: keyFile})
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM}, Exec: exec})
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	s := <-seen
	assert.Equal(t, p.clientName, s.clientCN)
	assert.Empty(t, s.auth)
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	assert.Equal(t, 1, pluginRuns(t, dir))
}

func TestExecPluginFailures(t *testing.T) {
	url, _ := authServer(t, nil)
	run := func(exec *ExecConfig) error {
		c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{Insecure: true}, Exec: exec})
		return c.Get().Resource("pods").Do(t.Context()).Error()
	}

	exec, _ := pluginConfig(t, "token")
	exec.Command = "kubecache-no-such-plugin"
	err := run(exec)
	assert.ErrorIs(t, err, ErrExecPluginNotFound)
	assert.ErrorContains(t, err, `"kubecache-no-such-plugin"`)
	assert.ErrorContains(t, err, "see the docs")

	exec, _ = pluginConfig(t, "token")
	exec.Command = filepath.Join(t.TempDir(), "bin", "plugin")
	assert.ErrorIs(t, run(exec), ErrExecPluginNotFound)

	exec, _ = pluginConfig(t, "fail")
	err = run(exec)
	assert.ErrorContains(t, err, "exit status 1")
	assert.ErrorContains(t, err, "the login session has expired")

	exec, _ = pluginConfig(t, "garbage")
	err = run(exec)
	assert.ErrorContains(t, err, "not an ExecCredential")
	assert.NotContains(t, err.Error(), "SECRET")

	exec, _ = pluginConfig(t, "huge")
	err = run(exec)
	assert.ErrorContains(t, err, "output is larger than 1048576 bytes")
	assert.NotContains(t, err.Error(), "SECRET")
	assert.Less(t, len(err.Error()), 1024, "the output is not quoted")

	exec, _ = pluginConfig(t, "wrongversion")
	err = run(exec)
	assert.ErrorContains(t, err, `output apiVersion is "client.authentication.k8s.io/v9"`)
	assert.NotContains(t, err.Error(), "SECRET")

	exec, dir := pluginConfig(t, "token")
	exec.InteractiveMode = ExecInteractiveAlways
	assert.ErrorContains(t, run(exec), "interactiveMode is Always")
	assert.Equal(t, 0, pluginRuns(t, dir))
}

func TestExecCredentialParse(t *testing.T) {
	a := &execAuth{cfg: ExecConfig{Command: "p", APIVersion: ExecAPIVersionV1}}
	tests := []struct {
		out, want string
	}{
		{`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"}`, "output has no status"},
		{`{"kind":"Other","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"x"}}`, `output kind is "Other"`},
		{`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{}}`, "neither a token nor a client certificate"},
		{`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"clientCertificateData":"x"}}`, "only one of"},
		{`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"clientCertificateData":"x","clientKeyData":"y"}}`, "client certificate"},
		{`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t","expirationTimestamp":"soon"}}`, "not an ExecCredential"},
	}
	for _, tt := range tests {
		_, err := a.parse([]byte(tt.out))
		assert.ErrorContains(t, err, tt.want, "parse(%s)", tt.out)
	}
	cred, err := a.parse([]byte(`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t","expirationTimestamp":"2030-01-01T00:00:00Z"}}`))
	require.NoError(t, err)
	assert.Equal(t, "t", cred.token)
	assert.Equal(t, 2030, cred.expiry.Year())
}
