package reliability_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/reliability"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// Security checks: TLS verification, credentials kept out of every output,
// authentication and authorization on every verb, the admin endpoint.

// kubeconfigFor loads the server's own kubeconfig, through a file as a
// user would.
func kubeconfigFor(t *testing.T, s *fakeapiserver.Server) *rest.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, s.Kubeconfig(), 0o600))
	cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: path})
	require.NoError(t, err)
	return cfg
}

// listConfigMaps lists ConfigMaps with cfg and returns the error.
func listConfigMaps(t *testing.T, cfg *rest.Config) error {
	t.Helper()
	c, err := rest.NewClient(cfg)
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, _, err = configMaps.on(c.Get(), "").List(ctx, func([]byte) error { return nil })
	return err
}

func TestTLSVerificationIsOnAndSaysWhatFailed(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{TLS: true})
	other := fakeapiserver.NewForTest(t, fakeapiserver.Options{TLS: true})
	good := kubeconfigFor(t, srv)
	require.NotEmpty(t, good.TLS.CAData)
	require.NoError(t, listConfigMaps(t, good), "the server's own kubeconfig works")

	for name, ca := range map[string][]byte{
		"no CA: the system pool does not trust the server": nil,
		"a wrong CA": kubeconfigFor(t, other).TLS.CAData,
	} {
		t.Run(name, func(t *testing.T) {
			cfg := *good
			cfg.TLS.CAData = ca
			err := listConfigMaps(t, &cfg)
			var unknown x509.UnknownAuthorityError
			require.ErrorAs(t, err, &unknown, "%v", err)
			assert.Contains(t, err.Error(), "certificate signed by unknown authority")
		})
	}
	t.Run("a wrong server name", func(t *testing.T) {
		cfg := *good
		cfg.TLS.ServerName = "wrong.example.com"
		err := listConfigMaps(t, &cfg)
		var host x509.HostnameError
		require.ErrorAs(t, err, &host, "%v", err)
		assert.Contains(t, err.Error(), "wrong.example.com", "the error names the name that was checked")
		assert.Contains(t, err.Error(), "127.0.0.1", "the error names what the certificate is valid for")
	})
	t.Run("verification off only when the kubeconfig says so", func(t *testing.T) {
		kc := strings.Replace(string(srv.Kubeconfig()), "    certificate-authority-data:", "    insecure-skip-tls-verify: true\n    x-removed:", 1)
		path := filepath.Join(t.TempDir(), "kubeconfig")
		require.NoError(t, os.WriteFile(path, []byte(kc), 0o600))
		cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: path})
		require.NoError(t, err)
		assert.True(t, cfg.TLS.Insecure)
		assert.NoError(t, listConfigMaps(t, cfg))
	})
}

// authServer is a fake server with two users: admin may do anything, dev
// nothing on ConfigMaps.
func authServer(t *testing.T, opts fakeapiserver.Options) *fakeapiserver.Server {
	opts.Tokens = map[string]fakeapiserver.User{testToken: {Name: "admin", Groups: []string{"system:masters"}}, "dev-token": {Name: "dev"}}
	opts.Forbid = []fakeapiserver.ForbidRule{{User: "dev", Match: fakeapiserver.Match{Resource: "configmaps"}}}
	return fakeapiserver.NewForTest(t, opts)
}

// verbRequest is one request of each verb on ConfigMaps, and the code an
// allowed user gets.
type verbRequest struct {
	verb, method, path, query, ctype, body string
	ok                                     int
}

// everyVerb holds one request per verb; setupVerbs creates the objects
// they need ("present" and "doomed").
var everyVerb = []verbRequest{
	{"get", "GET", cmCollection + "/present", "", "", "", 200},
	{"list", "GET", cmCollection, "", "", "", 200},
	{"watch", "GET", cmCollection, "watch=1&timeoutSeconds=1", "", "", 200},
	{"create", "POST", cmCollection, "", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"x-"}}`, 201},
	{"update", "PUT", cmCollection + "/present", "", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"present"}}`, 200},
	{"patch", "PATCH", cmCollection + "/present", "", "application/merge-patch+json", `{"data":{"a":"b"}}`, 200},
	{"delete", "DELETE", cmCollection + "/doomed", "", "", "", 200},
	{"deletecollection", "DELETE", cmCollection, "labelSelector=none", "", "", 200},
}

// send makes v's request to base with hc, setting the Authorization header
// when it is not empty, and returns the status code (0 and the error when
// no response came).
func (v verbRequest) send(t *testing.T, hc *http.Client, base, authorization string) (int, error) {
	t.Helper()
	u := base + v.path
	if v.query != "" {
		u += "?" + v.query
	}
	req, err := http.NewRequest(v.method, u, strings.NewReader(v.body))
	require.NoError(t, err)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	if v.ctype != "" {
		req.Header.Set("Content-Type", v.ctype)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// setupVerbs creates the objects everyVerb needs, as whoever hc and
// authorization authenticate.
func setupVerbs(t *testing.T, hc *http.Client, base, authorization string) {
	t.Helper()
	for _, name := range []string{"present", "doomed"} {
		create := verbRequest{method: "POST", path: cmCollection, ctype: "application/json",
			body: fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q}}`, name)}
		code, err := create.send(t, hc, base, authorization)
		require.NoError(t, err)
		require.Equal(t, http.StatusCreated, code, "create %s", name)
	}
}

// websocketWatch opens a websocket watch of ConfigMaps at base with the
// headers and TLS configuration given, and returns the handshake's status
// code (0 and the error when no response came).
func websocketWatch(base string, header http.Header, tc *tls.Config) (int, error) {
	u := "ws" + strings.TrimPrefix(base, "http") + cmCollection + "?watch=1&timeoutSeconds=1"
	header.Set("Origin", base)
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second, TLSClientConfig: tc}
	conn, resp, err := d.Dial(u, header)
	if conn != nil {
		conn.Close()
	}
	if resp == nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

func TestAuthenticationAndAuthorizationOnEveryVerb(t *testing.T) {
	srv := authServer(t, fakeapiserver.Options{})
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	setupVerbs(t, hc, srv.URL(), "Bearer "+testToken)
	for _, v := range everyVerb {
		for _, who := range []struct {
			name, header string
			want         int
		}{
			{"no credentials", "", 401},
			{"a wrong token", "Bearer not-a-token", 401},
			{"a malformed header", "Basic " + testToken, 401},
			{"a forbidden user", "Bearer dev-token", 403},
			{"an allowed user", "Bearer " + testToken, v.ok},
		} {
			t.Run(v.verb+"/"+who.name, func(t *testing.T) {
				code, err := v.send(t, hc, srv.URL(), who.header)
				require.NoError(t, err)
				assert.Equal(t, who.want, code)
			})
		}
	}

	// The websocket upgrade of a watch: the token in the header or in the
	// browser's bearer subprotocol.
	for _, who := range []struct {
		name   string
		header http.Header
		want   int
	}{
		{"no credentials", http.Header{}, 401},
		{"a wrong token", http.Header{"Authorization": {"Bearer not-a-token"}}, 401},
		{"a forbidden user", http.Header{"Authorization": {"Bearer dev-token"}}, 403},
		{"an allowed user", http.Header{"Authorization": {"Bearer " + testToken}}, 101},
	} {
		t.Run("websocket watch/"+who.name, func(t *testing.T) {
			code, err := websocketWatch(srv.URL(), who.header, nil)
			require.NotZero(t, code, "%v", err)
			assert.Equal(t, who.want, code)
		})
	}
}

func TestAdminEndpointIsOffUnlessAskedAndNeedsTheAdminCredential(t *testing.T) {
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	state := func(srv *fakeapiserver.Server, token string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/kubecache-admin/compact", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	off := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	assert.Equal(t, 404, state(off, ""), "off by default, even without authentication")
	offAuth := authServer(t, fakeapiserver.Options{})
	assert.Equal(t, 404, state(offAuth, testToken), "off by default")

	on := authServer(t, fakeapiserver.Options{Admin: true, AdminToken: "admin-secret"})
	assert.Equal(t, 401, state(on, ""), "no credential")
	assert.Equal(t, 401, state(on, testToken), "a user's token is not the admin credential")
	assert.Equal(t, 401, state(on, "dev-token"))
	assert.Equal(t, 200, state(on, "admin-secret"))

	noAdminToken := authServer(t, fakeapiserver.Options{Admin: true})
	assert.Equal(t, 401, state(noAdminToken, testToken), "with authentication on and no AdminToken, nobody gets in")
}

// TestCredentialsNeverAppearInErrors makes requests that fail in every way
// a credential could leak through: refused, unauthorized, forbidden, a
// broken kubeconfig, a failing exec plugin, a reflector's errors and
// traces. The matrix and the chaos test check their outputs the same way.
func TestCredentialsNeverAppearInErrors(t *testing.T) {
	const secret = "s3cr3t-t0ken-b7e1"
	var outs []string
	add := func(what string, v any) { outs = append(outs, fmt.Sprintf("%s: %v | %+v | %#v", what, v, v, v)) }

	srv := authServer(t, fakeapiserver.Options{})
	cfg := &rest.Config{Host: srv.URL(), BearerToken: secret, QPS: -1}
	add("unauthorized list", listConfigMaps(t, cfg))
	cfg = &rest.Config{Host: srv.URL(), BearerToken: "dev-token", QPS: -1}
	add("forbidden list", listConfigMaps(t, cfg))
	addr, err := reliability.ReserveLoopbackAddr()
	require.NoError(t, err)
	add("refused", listConfigMaps(t, &rest.Config{Host: "http://" + addr, BearerToken: secret, QPS: -1}))
	add("wrong scheme", listConfigMaps(t, &rest.Config{Host: "https://" + strings.TrimPrefix(srv.URL(), "http://"), BearerToken: secret, QPS: -1}))

	// A kubeconfig broken right after the token.
	dir := t.TempDir()
	for i, kc := range []string{
		"apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: " + secret + "\n    client-key-data: [not base64\n",
		"apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: " + secret + "\n    password: {\n",
		`{"users":[{"name":"u","user":{"token":"` + secret + `","client-key-data":"!!!"}}],"contexts":[{"name":"c","context":{"user":"u","cluster":"x"}}],"current-context":"c","clusters":[{"name":"x","cluster":{"server":"https://a"}}]}`,
		`{"users":[{"name":"u","user":{"token":5` + secret + `}}]}`,
	} {
		path := filepath.Join(dir, fmt.Sprintf("kc%d", i))
		require.NoError(t, os.WriteFile(path, []byte(kc), 0o600))
		cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: path})
		if err == nil {
			_, err = rest.NewClient(cfg)
		}
		require.Error(t, err, "kubeconfig %d", i)
		add(fmt.Sprintf("kubeconfig %d", i), err)
	}

	// A reflector that meets 401s, reporting errors and traces.
	var rerrs []*reflector.Error
	var traces []string
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), BearerToken: secret, QPS: -1})
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	lw := reflector.NewListWatchFromClient[*meta.Unstructured](c, "configmaps", "default", selectorNone)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := reflector.NewReflector[*meta.Unstructured](lw, reliability.NewCheckedStore[*meta.Unstructured](reliability.NewMonitor(), "s"), reflector.Options{
		Backoff: reflector.Backoff{Initial: time.Millisecond, Max: time.Millisecond},
		OnError: func(e *reflector.Error) {
			rerrs = append(rerrs, e)
			if len(rerrs) == 3 {
				cancel()
			}
		},
		Trace: func(ev reflector.TraceEvent) { traces = append(traces, ev.(fmt.Stringer).String()) },
	})
	require.NoError(t, err)
	require.NoError(t, r.Run(ctx))
	require.Len(t, rerrs, 3)
	for _, e := range rerrs {
		assert.True(t, rest.IsUnauthorized(e), "%v", e)
		add("reflector error", e)
		add("reflector error cause", errors.Unwrap(e))
	}
	outs = append(outs, traces...)

	for _, o := range outs {
		assert.NotContains(t, o, secret)
	}
	t.Logf("%d outputs checked", len(outs))
}
