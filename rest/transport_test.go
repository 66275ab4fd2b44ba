package rest

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seenRequest is what an auth-checking server saw.
type seenRequest struct {
	proto     int
	auth      string
	clientCN  string
	userAgent string
	header    http.Header
}

func authServer(t *testing.T, status func(r *http.Request) int) (srvURL string, seen <-chan seenRequest) {
	t.Helper()
	ch := make(chan seenRequest, 100)
	srv := newTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := seenRequest{proto: r.ProtoMajor, auth: r.Header.Get("Authorization"), userAgent: r.UserAgent(), header: r.Header.Clone()}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			s.clientCN = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		ch <- s
		code := http.StatusOK
		if status != nil {
			code = status(r)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if code == http.StatusUnauthorized {
			w.Write([]byte(statusBody(401, "Unauthorized", "Unauthorized", "")))
			return
		}
		w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`))
	}))
	return srv.URL, ch
}

// bearerServer is an authServer that answers 401 to any request without
// "Bearer <token>"; accept changes the token it takes from then on.
func bearerServer(t *testing.T, token string) (srvURL string, seen <-chan seenRequest, accept func(token string)) {
	t.Helper()
	var mu sync.Mutex
	srvURL, seen = authServer(t, func(r *http.Request) int {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+token {
			return http.StatusUnauthorized
		}
		return http.StatusOK
	})
	return srvURL, seen, func(next string) {
		mu.Lock()
		token = next
		mu.Unlock()
	}
}

func TestTLSClientCertificateAndHTTP2(t *testing.T) {
	p := getPKI(t)
	url, seen := authServer(t, nil)
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM, CertData: p.clientCert, KeyData: p.clientKey}})
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	s := <-seen
	assert.Equal(t, 2, s.proto, "HTTP/2 must stay on with a custom TLS config")
	assert.Equal(t, p.clientName, s.clientCN)
	assert.Empty(t, s.auth)
	assert.Equal(t, "kubecache/"+moduleVersion()+" ("+runtime.GOOS+"/"+runtime.GOARCH+")", s.userAgent)
	assert.True(t, strings.HasPrefix(s.userAgent, "kubecache/"))

	// The same from files.
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, b, 0o600))
		return path
	}
	c = newTestClient(t, &Config{Host: url, UserAgent: "mine/1", TLS: TLSConfig{
		CAFile: write("ca.crt", p.caPEM), CertFile: write("c.crt", p.clientCert), KeyFile: write("c.key", p.clientKey)}})
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	s = <-seen
	assert.Equal(t, p.clientName, s.clientCN)
	assert.Equal(t, "mine/1", s.userAgent)
}

func TestTLSVerification(t *testing.T) {
	p := getPKI(t)
	url, _ := authServer(t, nil)

	// No CA: the server's certificate is not trusted.
	c := newTestClient(t, &Config{Host: url})
	err := c.Get().Resource("pods").Do(t.Context()).Error()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate")

	// Insecure skips verification.
	c = newTestClient(t, &Config{Host: url, TLS: TLSConfig{Insecure: true}})
	assert.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())

	// A server name the certificate does not hold fails; one it holds works.
	c = newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM, ServerName: "wrong.example"}})
	assert.Error(t, c.Get().Resource("pods").Do(t.Context()).Error())
	c = newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM, ServerName: "kubernetes.default.svc"}})
	assert.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
}

func TestNewClientErrors(t *testing.T) {
	p := getPKI(t)
	tests := []struct {
		name string
		cfg  *Config
		want string
	}{
		{"nil", nil, "nil Config"},
		{"no host", &Config{}, "Host is empty"},
		{"bad scheme", &Config{Host: "ftp://x"}, `scheme "ftp"`},
		{"ca and insecure", &Config{Host: "https://x", TLS: TLSConfig{CAData: p.caPEM, Insecure: true}}, "both set"},
		{"bad ca", &Config{Host: "https://x", TLS: TLSConfig{CAData: []byte("nope")}}, "no PEM certificate"},
		{"missing ca file", &Config{Host: "https://x", TLS: TLSConfig{CAFile: "/nonexistent/ca.crt"}}, "CA file"},
		{"cert without key", &Config{Host: "https://x", TLS: TLSConfig{CertData: p.clientCert}}, "both the certificate and the key"},
		{"mismatched pair", &Config{Host: "https://x", TLS: TLSConfig{CertData: p.clientCert, KeyData: []byte("junk")}}, "client certificate"},
		{"token and exec", &Config{Host: "https://x", BearerToken: "t", Exec: &ExecConfig{Command: "x", APIVersion: ExecAPIVersionV1beta1}}, "choose one"},
		{"basic and token", &Config{Host: "https://x", BearerToken: "t", Username: "u"}, "choose one"},
		{"bad proxy", &Config{Host: "https://x", ProxyURL: "ftp://proxy"}, "proxy URL"},
		{"bad exec", &Config{Host: "https://x", Exec: &ExecConfig{Command: "x", APIVersion: "v9"}}, "apiVersion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClient(tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestBearerTokenBasicAuthAndImpersonation(t *testing.T) {
	p := getPKI(t)
	url, seen := authServer(t, nil)
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM}, BearerToken: "secret-token",
		Impersonate: ImpersonationConfig{UserName: "bob", UID: "1234", Groups: []string{"dev", "ops"},
			Extra: map[string][]string{"scopes": {"a", "b"}, "example.com/team name": {"x"}}}})
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	s := <-seen
	assert.Equal(t, "Bearer secret-token", s.auth)
	assert.Equal(t, "bob", s.header.Get("Impersonate-User"))
	assert.Equal(t, "1234", s.header.Get("Impersonate-Uid"))
	assert.Equal(t, []string{"dev", "ops"}, s.header.Values("Impersonate-Group"))
	assert.Equal(t, []string{"a", "b"}, s.header.Values("Impersonate-Extra-Scopes"))
	assert.Equal(t, []string{"x"}, s.header.Values("Impersonate-Extra-Example.com%2Fteam%20name"))

	// An Authorization header set on the request wins.
	require.NoError(t, c.Get().Resource("pods").SetHeader("Authorization", "Bearer per-request").Do(t.Context()).Error())
	assert.Equal(t, "Bearer per-request", (<-seen).auth)

	c = newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM}, Username: "admin", Password: "pw"})
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	s = <-seen
	assert.Equal(t, "Basic YWRtaW46cHc=", s.auth)
	assert.Empty(t, s.header.Get("Impersonate-User"))
}

func TestTokenFileReread(t *testing.T) {
	p := getPKI(t)
	url, seen, accept := bearerServer(t, "token-one")
	path := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(path, []byte("token-one\n"), 0o600))
	clock := newFakeClock()
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{CAData: p.caPEM}, BearerTokenFile: path,
		BearerToken: "ignored-static", Clock: clock})
	get := func() error { return c.Get().Resource("pods").Do(t.Context()).Error() }

	require.NoError(t, get())
	assert.Equal(t, "Bearer token-one", (<-seen).auth)

	// The file changes; within the refresh interval the old token is used.
	require.NoError(t, os.WriteFile(path, []byte("token-two"), 0o600))
	require.NoError(t, get())
	assert.Equal(t, "Bearer token-one", (<-seen).auth)

	// After a minute the file is read again.
	clock.Step(DefaultTokenFileRefresh)
	accept("token-two")
	require.NoError(t, get())
	assert.Equal(t, "Bearer token-two", (<-seen).auth)

	// A 401 makes the next request read the file at once.
	require.NoError(t, os.WriteFile(path, []byte("token-three"), 0o600))
	accept("token-three")
	err := get()
	assert.True(t, IsUnauthorized(err), "got %v", err)
	assert.Equal(t, "Bearer token-two", (<-seen).auth)
	require.NoError(t, get())
	assert.Equal(t, "Bearer token-three", (<-seen).auth)

	// A file that disappears after a good read keeps the last token.
	require.NoError(t, os.Remove(path))
	clock.Step(DefaultTokenFileRefresh)
	require.NoError(t, get())
	assert.Equal(t, "Bearer token-three", (<-seen).auth)
}

func TestTokenFileMissingAtFirstUse(t *testing.T) {
	url, _ := authServer(t, nil)
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{Insecure: true}, BearerTokenFile: "/nonexistent/token"})
	err := c.Get().Resource("pods").Do(t.Context()).Error()
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, err.Error(), "token file")
}

// TestNoCredentialInLogsOrErrors runs failing and succeeding requests with
// a debug logger and checks that no token appears in a log record or an
// error message.
func TestNoCredentialInLogsOrErrors(t *testing.T) {
	const secret = "s3cr3t-t0k3n-value"
	url, _ := authServer(t, func(r *http.Request) int {
		if r.URL.Path == "/api/v1/pods" {
			return http.StatusOK
		}
		return http.StatusUnauthorized
	})
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{Insecure: true}, BearerToken: secret, Logger: logger,
		Username: "", ProxyURL: ""})
	var errs []string
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	errs = append(errs, c.Get().Resource("secrets").Do(t.Context()).Error().Error())
	_, _, err := c.Get().Resource("secrets").List(t.Context(), func([]byte) error { return nil })
	errs = append(errs, err.Error())
	_, err = WatchAs[*testPod](t.Context(), c.Get().Resource("secrets"))
	errs = append(errs, err.Error())
	_, err = WatchAs[*testPod](t.Context(), c.Get().Resource("secrets").Transport(WatchOverWebsocket))
	errs = append(errs, err.Error())

	// Token file and proxy credentials in errors.
	_, err = NewClient(&Config{Host: "https://x", ProxyURL: "ftp://user:" + secret + "@proxy"})
	errs = append(errs, err.Error())
	_, err = NewClient(&Config{Host: "https://x", ProxyURL: "http://user:" + secret + "@[::1"})
	errs = append(errs, err.Error())

	mu.Lock()
	out := logs.String()
	mu.Unlock()
	assert.Contains(t, out, "status=401", "the debug log records requests")
	assert.NotContains(t, out, secret)
	for _, e := range errs {
		assert.NotContains(t, e, secret)
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestSilentWithoutLogger(t *testing.T) {
	// No Logger: nothing is written to the default slog logger.
	var out bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(prev)
	url, _ := authServer(t, nil)
	c := newTestClient(t, &Config{Host: url, TLS: TLSConfig{Insecure: true}})
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	assert.Empty(t, out.String())
}

func TestHTTP2Config(t *testing.T) {
	tr := newHTTPTransport(&Config{}, nil, nil)
	require.NotNil(t, tr.HTTP2)
	assert.Equal(t, 30*time.Second, tr.HTTP2.SendPingTimeout)
	assert.Equal(t, 15*time.Second, tr.HTTP2.PingTimeout)
	assert.True(t, tr.Protocols.HTTP2())
	assert.True(t, tr.Protocols.HTTP1())
	tr = newHTTPTransport(&Config{HTTP2ReadIdleTimeout: -1, HTTP2PingTimeout: time.Second}, nil, nil)
	assert.Zero(t, tr.HTTP2.SendPingTimeout)
	assert.Equal(t, time.Second, tr.HTTP2.PingTimeout)
}
