package rest

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// kindKubeconfig is a kubeconfig of the shape kind writes: data fields for
// the CA and client certificate.
func kindKubeconfig(p *testPKI, server string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
preferences: {}
current-context: kind-kind
clusters:
- cluster:
    certificate-authority-data: %s
    server: %s
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    user: kind-kind
    namespace: team-a
  name: kind-kind
users:
- name: kind-kind
  user:
    client-certificate-data: %s
    client-key-data: %s
`, b64(p.caPEM), server, b64(p.clientCert), b64(p.clientKey))
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func TestKubeconfigKindEndToEnd(t *testing.T) {
	p := getPKI(t)
	url, seen := authServer(t, nil)
	path := writeFile(t, t.TempDir(), "config", kindKubeconfig(p, url))
	cfg, err := LoadKubeconfig(KubeconfigOptions{Path: path})
	require.NoError(t, err)
	assert.Equal(t, url, cfg.Host)
	assert.Equal(t, "team-a", cfg.Namespace)
	assert.Equal(t, p.caPEM, cfg.TLS.CAData)
	assert.Equal(t, p.clientCert, cfg.TLS.CertData)

	c := newTestClient(t, cfg)
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	s := <-seen
	assert.Equal(t, p.clientName, s.clientCN)
	assert.Equal(t, 2, s.proto)
}

func TestKubeconfigFields(t *testing.T) {
	p := getPKI(t)
	dir := t.TempDir()
	writeFile(t, dir, "pki/ca.crt", string(p.caPEM))
	writeFile(t, dir, "pki/client.crt", string(p.clientCert))
	writeFile(t, dir, "pki/client.key", string(p.clientKey))
	writeFile(t, dir, "token", "file-token\n")
	path := writeFile(t, dir, "config", `
apiVersion: v1
kind: Config
current-context: other
clusters:
- name: c1
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: pki/ca.crt
    tls-server-name: api.internal
    proxy-url: socks5://127.0.0.1:1080
    disable-compression: true
    extensions:
    - name: client.authentication.k8s.io/exec
      extension:
        audience: kubecache
- name: c2
  cluster:
    server: 10.0.0.2:443
    insecure-skip-tls-verify: true
contexts:
- name: files
  context: {cluster: c1, user: files}
- name: other
  context: {cluster: c2, user: imp, namespace: kube-system}
- name: exec
  context: {cluster: c1, user: exec}
- name: anonymous
  context: {cluster: c2}
users:
- name: files
  user:
    client-certificate: pki/client.crt
    client-key: pki/client.key
    tokenFile: token
- name: imp
  user:
    token: static-token
    as: jane
    as-uid: "42"
    as-groups: [dev, ops]
    as-user-extra:
      scopes: [view]
- name: exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get-token]
      env: [{name: REGION, value: eu}]
      interactiveMode: Never
      provideClusterInfo: true
      installHint: install the plugin
`)
	cfg, err := LoadKubeconfig(KubeconfigOptions{Path: path, Context: "files"})
	require.NoError(t, err)
	assert.Equal(t, "https://10.0.0.1:6443", cfg.Host)
	assert.Equal(t, p.caPEM, cfg.TLS.CAData)
	assert.Equal(t, "api.internal", cfg.TLS.ServerName)
	assert.Equal(t, "socks5://127.0.0.1:1080", cfg.ProxyURL)
	assert.True(t, cfg.DisableCompression)
	assert.Equal(t, p.clientCert, cfg.TLS.CertData)
	assert.Equal(t, p.clientKey, cfg.TLS.KeyData)
	assert.Equal(t, filepath.Join(dir, "token"), cfg.BearerTokenFile)
	assert.Empty(t, cfg.Namespace)
	_, err = NewClient(cfg)
	require.NoError(t, err)

	cfg, err = LoadKubeconfig(KubeconfigOptions{Path: path}) // current-context: other
	require.NoError(t, err)
	assert.Equal(t, "https://10.0.0.2:443", cfg.Host)
	assert.True(t, cfg.TLS.Insecure)
	assert.Equal(t, "kube-system", cfg.Namespace)
	assert.Equal(t, "static-token", cfg.BearerToken)
	assert.Equal(t, ImpersonationConfig{UserName: "jane", UID: "42", Groups: []string{"dev", "ops"},
		Extra: map[string][]string{"scopes": {"view"}}}, cfg.Impersonate)

	cfg, err = LoadKubeconfig(KubeconfigOptions{Path: path, Context: "exec"})
	require.NoError(t, err)
	require.NotNil(t, cfg.Exec)
	assert.Equal(t, filepath.Join(dir, "bin/plugin"), cfg.Exec.Command)
	assert.Equal(t, []string{"get-token"}, cfg.Exec.Args)
	assert.Equal(t, []ExecEnvVar{{Name: "REGION", Value: "eu"}}, cfg.Exec.Env)
	assert.True(t, cfg.Exec.ProvideClusterInfo)
	assert.JSONEq(t, `{"audience":"kubecache"}`, string(cfg.Exec.ClusterConfig))

	cfg, err = LoadKubeconfig(KubeconfigOptions{Path: path, Context: "anonymous"})
	require.NoError(t, err)
	assert.Empty(t, cfg.BearerToken)
	assert.Nil(t, cfg.Exec)
}

func TestKubeconfigMerge(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a", `
clusters:
- name: shared
  cluster: {server: "https://from-a"}
contexts:
- name: ctx-a
  context: {cluster: shared}
`)
	b := writeFile(t, dir, "b", `
current-context: ctx-b
clusters:
- name: shared
  cluster: {server: "https://from-b"}
- name: only-b
  cluster: {server: "https://only-b"}
contexts:
- name: ctx-b
  context: {cluster: only-b, namespace: nb}
- name: ctx-a
  context: {cluster: only-b}
`)
	c := writeFile(t, dir, "c", `current-context: ctx-a`)
	missing := filepath.Join(dir, "missing")
	env := func(list ...string) func(string) string {
		return mapEnv(map[string]string{"KUBECONFIG": strings.Join(list, string(filepath.ListSeparator)), "HOME": dir})
	}

	// current-context from the first file that sets it (b), clusters by
	// first occurrence.
	cfg, err := loadKubeconfig(KubeconfigOptions{}, env(a, missing, b))
	require.NoError(t, err)
	assert.Equal(t, "https://only-b", cfg.Host)
	assert.Equal(t, "nb", cfg.Namespace)

	cfg, err = loadKubeconfig(KubeconfigOptions{Context: "ctx-a"}, env(a, b))
	require.NoError(t, err)
	assert.Equal(t, "https://from-a", cfg.Host, "ctx-a and shared come from the first file")

	cfg, err = loadKubeconfig(KubeconfigOptions{}, env(c, b, a))
	require.NoError(t, err)
	assert.Equal(t, "https://only-b", cfg.Host, "current-context ctx-a from c; ctx-a from b")

	// Only missing files.
	_, err = loadKubeconfig(KubeconfigOptions{}, env(missing))
	assert.ErrorIs(t, err, ErrNoKubeconfig)

	// The explicit path wins over KUBECONFIG.
	cfg, err = loadKubeconfig(KubeconfigOptions{Path: a, Context: "ctx-a"}, env(b))
	require.NoError(t, err)
	assert.Equal(t, "https://from-a", cfg.Host)

	// Without KUBECONFIG: ~/.kube/config.
	_, err = loadKubeconfig(KubeconfigOptions{}, mapEnv(map[string]string{"HOME": dir}))
	assert.ErrorIs(t, err, ErrNoKubeconfig)
	assert.ErrorContains(t, err, filepath.Join(dir, ".kube", "config"))
	writeFile(t, dir, ".kube/config", `
current-context: home
contexts: [{name: home, context: {cluster: h}}]
clusters: [{name: h, cluster: {server: "https://home:6443"}}]
`)
	cfg, err = loadKubeconfig(KubeconfigOptions{}, mapEnv(map[string]string{"HOME": dir}))
	require.NoError(t, err)
	assert.Equal(t, "https://home:6443", cfg.Host)
}

func TestKubeconfigErrors(t *testing.T) {
	p := getPKI(t)
	dir := t.TempDir()
	unreadable := writeFile(t, dir, "unreadable.crt", string(p.caPEM))
	require.NoError(t, os.Chmod(unreadable, 0))
	canRead := false
	if f, err := os.Open(unreadable); err == nil { // running as root
		f.Close()
		canRead = true
	}
	base := func(cluster, user string) string {
		return fmt.Sprintf(`
current-context: ctx
contexts:
- name: ctx
  context: {cluster: cl, user: u}
clusters:
- name: cl
  cluster:
%s
users:
- name: u
  user:
%s
`, indent(cluster, 4), indent(user, 4))
	}
	okCluster := "server: https://1.2.3.4"
	tests := []struct {
		name    string
		content string // "" means the file is not created
		context string
		want    string // the error, after "kubeconfig <path>"
		skip    bool
	}{
		{name: "missing file", want: ": open "},
		{name: "bad yaml", content: "clusters: [\n  - name: x\n  bad", want: ": error converting YAML to JSON"},
		{name: "wrong shape", content: "clusters: {a: b}", want: ": error unmarshaling JSON"},
		{name: "no current context", content: "clusters: []", want: ": current-context is not set and no context was chosen"},
		{name: "unknown context", content: base(okCluster, "token: t"), context: "foo", want: `: context "foo" not found`},
		{name: "missing cluster", content: `
current-context: foo
contexts: [{name: foo, context: {cluster: bar}}]`, want: `: context "foo": cluster "bar" not found`},
		{name: "context without cluster", content: `
current-context: foo
contexts: [{name: foo, context: {user: u}}]`, want: `: context "foo": cluster is not set`},
		{name: "missing user", content: `
current-context: foo
contexts: [{name: foo, context: {cluster: c, user: ghost}}]
clusters: [{name: c, cluster: {server: "https://x"}}]`, want: `: context "foo": user "ghost" not found`},
		{name: "no server", content: base("insecure-skip-tls-verify: true", "token: t"), want: `: cluster "cl": server is not set`},
		{name: "bad server", content: base("server: ftp://x", "token: t"), want: `: cluster "cl": server: scheme "ftp" is not http or https`},
		{name: "bad base64 ca", content: base(okCluster+"\ncertificate-authority-data: '!!notbase64'", "token: t"),
			want: `: cluster "cl": certificate-authority-data: illegal base64 data at input byte 0`},
		{name: "ca data not pem", content: base(okCluster+"\ncertificate-authority-data: "+b64([]byte("hello")), "token: t"),
			want: `: cluster "cl": certificate-authority-data: no PEM certificate found`},
		{name: "missing ca file", content: base(okCluster+"\ncertificate-authority: /nonexistent/ca.crt", "token: t"),
			want: `: cluster "cl": certificate-authority: open /nonexistent/ca.crt: no such file or directory`},
		{name: "unreadable ca file", content: base(okCluster+"\ncertificate-authority: "+unreadable, "token: t"),
			want: `: cluster "cl": certificate-authority: open ` + unreadable + `: permission denied`, skip: canRead},
		{name: "ca path is a directory", content: base(okCluster+"\ncertificate-authority: "+dir, "token: t"),
			want: `: cluster "cl": certificate-authority: read ` + dir + `: is a directory`},
		{name: "bad base64 client cert", content: base(okCluster, "client-certificate-data: abc\nclient-key-data: "+b64(p.clientKey)),
			want: `: user "u": client-certificate-data: illegal base64 data at input byte 0`},
		{name: "cert without key", content: base(okCluster, "client-certificate-data: "+b64(p.clientCert)),
			want: `: user "u": client-certificate is set but client-key is not`},
		{name: "key without cert", content: base(okCluster, "client-key-data: "+b64(p.clientKey)),
			want: `: user "u": client-key is set but client-certificate is not`},
		{name: "mismatched pair", content: base(okCluster, "client-certificate-data: "+b64(p.caPEM)+"\nclient-key-data: "+b64(p.clientKey)),
			want: `: user "u": client-certificate and client-key: tls: private key does not match public key`},
		{name: "missing token file", content: base(okCluster, "tokenFile: /nonexistent/token"),
			want: `: user "u": tokenFile: read token file: open /nonexistent/token: no such file or directory`},
		{name: "exec without command", content: base(okCluster, "exec: {apiVersion: client.authentication.k8s.io/v1beta1}"),
			want: `: user "u": exec: command is not set`},
		{name: "exec without apiVersion", content: base(okCluster, "exec: {command: x}"),
			want: `: user "u": exec: apiVersion is not set`},
		{name: "exec v1 without interactiveMode", content: base(okCluster, "exec: {command: x, apiVersion: client.authentication.k8s.io/v1}"),
			want: `: user "u": exec: interactiveMode must be set for client.authentication.k8s.io/v1`},
		{name: "exec alpha", content: base(okCluster, "exec: {command: x, apiVersion: client.authentication.k8s.io/v1alpha1}"),
			want: `: user "u": exec: apiVersion "client.authentication.k8s.io/v1alpha1" is not`},
		{name: "auth provider", content: base(okCluster, "auth-provider: {name: gcp}"),
			want: `: user "u": auth-provider "gcp" is not supported: use an exec credential plugin`},
		{name: "bad proxy", content: base(okCluster+"\nproxy-url: ftp://p:21", "token: t"),
			want: `: cluster "cl": proxy-url: scheme "ftp" is not http, https or socks5`},
		{name: "duplicate name", content: "clusters: [{name: a, cluster: {server: x}}, {name: a, cluster: {server: y}}]",
			want: `: clusters: name "a" appears twice`},
		{name: "empty name", content: "users: [{user: {token: t}}]", want: `: users[0]: name is empty`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip {
				t.Skip("running as a user who can read any file")
			}
			path := filepath.Join(dir, fmt.Sprintf("config-%d", i))
			if tt.content != "" {
				writeFile(t, dir, filepath.Base(path), tt.content)
			}
			_, err := LoadKubeconfig(KubeconfigOptions{Path: path, Context: tt.context})
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "kubeconfig "+path+tt.want),
				"LoadKubeconfig error\n got: %v\nwant: kubeconfig %s%s...", err, path, tt.want)
		})
	}
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// FuzzKubeconfig feeds arbitrary bytes to the kubeconfig loader: it must
// return a Config or an error naming the file, never panic, and a Config it
// returns must name a server.
func FuzzKubeconfig(f *testing.F) {
	p := getPKI(f)
	f.Add([]byte(kindKubeconfig(p, "https://127.0.0.1:6443")), "")
	f.Add([]byte("current-context: a\ncontexts: [{name: a, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: x}}]\nusers: [{name: u, user: {token: t, as: bob, as-groups: [g]}}]"), "a")
	f.Add([]byte("{\"current-context\":\"a\",\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"c\"}}],\"clusters\":[{\"name\":\"c\",\"cluster\":{\"server\":\"http://h:1\",\"proxy-url\":\"socks5://p:1\"}}]}"), "")
	f.Add([]byte("users: [{name: u, user: {exec: {command: x, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}}}]"), "a")
	f.Add([]byte("clusters: [{name: a, cluster: {certificate-authority-data: '%%%'}}]"), "")
	f.Add([]byte("- a\n- b"), "")
	f.Fuzz(func(t *testing.T, data []byte, context string) {
		const file = "/fuzz/config"
		m := &mergedKubeconfig{
			clusters: map[string]sourced[kubecCluster]{},
			users:    map[string]sourced[kubecUser]{},
			contexts: map[string]sourced[kubecContext]{},
		}
		err := m.add(file, data)
		var cfg *Config
		if err == nil {
			cfg, err = m.resolve(context)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "kubeconfig "+file) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		require.NotNil(t, cfg)
		assert.NotEmpty(t, cfg.Host)
		if _, err := NewClient(cfg); err != nil && !errors.Is(err, os.ErrNotExist) {
			// A loaded Config may still be refused (both a token and an
			// exec plugin, say), but only with an error.
			assert.NotEmpty(t, err.Error())
		}
	})
}

func TestLoadKubeconfigNotFoundSentinels(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	content := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: []
contexts:
- {name: good, context: {cluster: c}}
- {name: nocluster, context: {cluster: ghost}}
- {name: nouser, context: {cluster: c, user: ghost}}
current-context: good
`
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	tests := []struct {
		context string
		want    error
	}{
		{"missing", ErrContextNotFound},
		{"nocluster", ErrClusterNotFound},
		{"nouser", ErrUserNotFound},
	}
	for _, tt := range tests {
		_, err := LoadKubeconfig(KubeconfigOptions{Path: path, Context: tt.context})
		assert.ErrorIs(t, err, tt.want, "LoadKubeconfig(context %q)", tt.context)
	}
}
