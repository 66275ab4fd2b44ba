package fakeapiserver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/internal/hostile"
)

// Only members of system:masters and users an Impersonate rule names may
// impersonate; for anyone else Impersonate-User is a 403 with the real
// server's words, so it cannot get round a Forbid rule.
func TestImpersonationNeedsPermission(t *testing.T) {
	_, c := newTestServer(t, Options{
		Tokens: map[string]User{
			"alice-token": {Name: "alice"}, "root-token": {Name: "root", Groups: []string{"system:masters"}},
			"carol-token": {Name: "carol"}, "ops-token": {Name: "dave", Groups: []string{"ops"}},
		},
		Forbid:      []ForbidRule{{User: "alice", Match: request.Match{Resource: "configmaps"}}},
		Impersonate: []ImpersonateRule{{User: "carol"}, {Group: "ops"}},
	})
	r := c.get(cmPath, "Authorization", "Bearer alice-token", "Impersonate-User", "bob")
	require.Equal(t, http.StatusForbidden, r.code)
	assert.Equal(t, `users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`, r.status(t).Message)
	for _, token := range []string{"root-token", "carol-token", "ops-token"} {
		assert.Equal(t, http.StatusOK, c.get(cmPath, "Authorization", "Bearer "+token, "Impersonate-User", "bob").code, token)
	}
	// bob impersonated by root is bob: not under alice's rule.
	assert.Equal(t, http.StatusOK, c.get(cmPath, "Authorization", "Bearer root-token", "Impersonate-User", "bob").code)
	assert.Equal(t, http.StatusForbidden, c.get(cmPath, "Authorization", "Bearer root-token", "Impersonate-User", "alice").code)
}

// The Authorization header is read as the real server reads it: "Bearer"
// and the token separated by one space; "Bearer  t" (two spaces) carries
// an empty token and does not authenticate.
func TestBearerTokenSyntax(t *testing.T) {
	_, c := newTestServer(t, Options{Tokens: map[string]User{"s3cret": {Name: "admin", Groups: []string{"system:masters"}}}})
	for header, want := range map[string]int{
		"Bearer s3cret": 200, "bearer s3cret": 200, "  Bearer s3cret  ": 200, "Bearer s3cret trailing": 200,
		"Bearer  s3cret": 401, "Bearer": 401, "Bearer ": 401, "Basic s3cret": 401, "s3cret": 401,
	} {
		assert.Equal(t, want, c.get(cmPath, "Authorization", header).code, "Authorization: %q", header)
	}
}

// A connection that never finishes its headers, one that stays idle after
// a request, an HTTP/2 connection that sends only its preface and a
// request whose body stalls are all closed by the server's timeouts, and
// the server answers a new request meanwhile. The waits are generous: the
// flood's 200 TLS handshakes and the closes take seconds on a loaded
// machine, and a connection the server cuts before it is set up is
// dialled again; a server that never closes them fails after two minutes.
func TestServerClosesSlowAndIdleConnections(t *testing.T) {
	const timeout = 2 * time.Second
	s := NewForTest(t, Options{TLS: true, ReadHeaderTimeout: timeout, IdleTimeout: timeout, RequestTimeout: timeout})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	f, err := hostile.StartFlood(ctx, hostile.FloodOptions{
		Addr: strings.TrimPrefix(s.URL(), "https://"), TLS: s.ClientTLSConfig(),
		Idle: 50, StalledHeaders: 50, StalledBodies: 50, Prefaces: 50, Redial: true,
	})
	require.NoError(t, err)
	defer f.Close()
	tr := &http.Transport{TLSClientConfig: s.ClientTLSConfig()}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Get(s.URL() + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a new request is served during the flood")
	require.Eventually(t, func() bool { return len(f.Open()) == 0 }, 2*time.Minute, 50*time.Millisecond, "still open: %v", f.Open())
	t.Logf("200 flood connections closed by the server within %v", time.Since(start))
}

// Past MaxMutatingRequestsInFlight a write is answered 429 at once with
// Retry-After: 1; reads and watches are not counted against it.
func TestInFlightLimit(t *testing.T) {
	s := NewForTest(t, Options{MaxMutatingRequestsInFlight: 5, MaxRequestsInFlight: 3})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	f, err := hostile.StartFlood(ctx, hostile.FloodOptions{Addr: strings.TrimPrefix(s.URL(), "http://"), StalledBodies: 5})
	require.NoError(t, err)
	defer f.Close()
	c := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer c.CloseIdleConnections()
	post := func() *http.Response {
		resp, err := c.Post(s.URL()+cmPath, "application/json", strings.NewReader(`{"metadata":{"generateName":"x-"}}`))
		require.NoError(t, err)
		return resp
	}
	var resp *http.Response
	require.Eventually(t, func() bool {
		resp = post()
		resp.Body.Close()
		return resp.StatusCode == http.StatusTooManyRequests
	}, 10*time.Second, 10*time.Millisecond, "the five stalled bodies fill the write budget")
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	get, err := c.Get(s.URL() + cmPath)
	require.NoError(t, err)
	get.Body.Close()
	assert.Equal(t, http.StatusOK, get.StatusCode, "reads have their own budget")

	f.Close()
	require.Eventually(t, func() bool {
		resp := post()
		resp.Body.Close()
		return resp.StatusCode == http.StatusCreated
	}, 10*time.Second, 10*time.Millisecond, "the budget is given back")
}
