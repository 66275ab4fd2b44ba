package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHealthEndpoints checks /healthz, /livez and /readyz with the real
// server's answers: "ok", the verbose list of checks, exclusions, a
// single check and an unknown one.
func TestHealthEndpoints(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.get("/livez")
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, "ok", string(r.body))
	assert.Equal(t, "text/plain; charset=utf-8", r.header.Get("Content-Type"))

	r = c.get("/livez?verbose")
	require.Equal(t, http.StatusOK, r.code)
	lines := strings.Split(strings.TrimSuffix(string(r.body), "\n"), "\n")
	assert.Equal(t, []string{"[+]ping ok", "[+]log ok", "[+]loopback-serving-certificate ok", "[+]etcd ok"}, lines[:4])
	assert.Contains(t, lines, "[+]poststarthook/rbac/bootstrap-roles ok")
	assert.Equal(t, "livez check passed", lines[len(lines)-1])
	assert.Len(t, lines, 35)

	r = c.get("/readyz?verbose&exclude=etcd&exclude=zz&exclude=bogus")
	require.Equal(t, http.StatusOK, r.code)
	body := string(r.body)
	assert.True(t, strings.HasPrefix(body, "[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n"), body)
	assert.True(t, strings.HasSuffix(body, "[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for \"bogus\",\"zz\"\nreadyz check passed\n"), body)

	r = c.get("/healthz?verbose")
	assert.True(t, strings.HasSuffix(string(r.body), "[+]poststarthook/apiservice-openapiv3-controller ok\nhealthz check passed\n"), "%s", r.body)

	for _, p := range []string{"/livez/ping", "/readyz/shutdown", "/livez/poststarthook/rbac/bootstrap-roles", "/healthz/etcd?verbose"} {
		r = c.get(p)
		assert.Equal(t, http.StatusOK, r.code, p)
		assert.Equal(t, "ok", string(r.body), p)
	}
	r = c.get("/livez/bogus")
	assert.Equal(t, http.StatusNotFound, r.code)
	assert.Equal(t, "404 page not found\n", string(r.body))
	r = c.get("/livez/shutdown")
	assert.Equal(t, http.StatusNotFound, r.code, "shutdown is a readiness check only")
}
