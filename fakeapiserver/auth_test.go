package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/meta"
)

func TestTokenAuthAndForbidRules(t *testing.T) {
	s, c := newTestServer(t, Options{
		Tokens:      map[string]User{"admin-token": {Name: "admin"}, "dev-token": {Name: "dev"}},
		Forbid:      []ForbidRule{{User: "dev", Match: request.Match{Verb: "list", Resource: "secrets"}}, {User: "dev", Match: request.Match{Verb: "impersonate"}}},
		Impersonate: []ImpersonateRule{{User: "admin"}},
	})
	r := c.get(cmPath)
	require.Equal(t, http.StatusUnauthorized, r.code)
	st := r.status(t)
	assert.Equal(t, meta.ReasonUnauthorized, st.Reason)
	assert.Equal(t, "Unauthorized", st.Message)
	assert.Equal(t, http.StatusUnauthorized, c.get(cmPath, "Authorization", "Bearer wrong").code)
	assert.Equal(t, http.StatusOK, c.get("/healthz").code, "health needs no credentials")
	assert.Equal(t, http.StatusOK, c.get(cmPath, "Authorization", "Bearer dev-token").code)

	r = c.get("/api/v1/namespaces/default/secrets", "Authorization", "Bearer dev-token")
	require.Equal(t, http.StatusForbidden, r.code)
	assert.Equal(t, `secrets is forbidden: User "dev" cannot list resource "secrets" in API group "" in the namespace "default"`, r.status(t).Message)
	r = c.get("/api/v1/secrets", "Authorization", "Bearer dev-token")
	assert.Equal(t, `secrets is forbidden: User "dev" cannot list resource "secrets" in API group "" at the cluster scope`, r.status(t).Message)
	assert.Equal(t, http.StatusOK, c.get("/api/v1/namespaces/default/secrets", "Authorization", "Bearer admin-token").code)

	// Impersonation: admin acting as dev is forbidden like dev; dev may not impersonate.
	r = c.get("/api/v1/namespaces/default/secrets", "Authorization", "Bearer admin-token", "Impersonate-User", "dev")
	assert.Equal(t, http.StatusForbidden, r.code)
	r = c.get(cmPath, "Authorization", "Bearer dev-token", "Impersonate-User", "admin")
	assert.Equal(t, http.StatusForbidden, r.code)

	var kc struct {
		Users []struct {
			User map[string]string `json:"user"`
		} `json:"users"`
		Clusters []struct {
			Cluster map[string]string `json:"cluster"`
		} `json:"clusters"`
	}
	require.NoError(t, yaml.Unmarshal(s.Kubeconfig(), &kc))
	assert.Equal(t, "admin-token", kc.Users[0].User["token"])
	assert.Equal(t, s.URL(), kc.Clusters[0].Cluster["server"])
}

func TestTLSWithClientCertificates(t *testing.T) {
	s := NewForTest(t, Options{TLS: true, ClientCertificates: true})
	require.True(t, strings.HasPrefix(s.URL(), "https://"))
	tr := &http.Transport{TLSClientConfig: s.ClientTLSConfig(), ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	resp, err := client.Get(s.URL() + cmPath)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 2, resp.ProtoMajor, "HTTP/2 over TLS")

	// Without the client certificate: 401.
	noCert := s.ClientTLSConfig().Clone()
	noCert.Certificates = nil
	tr2 := &http.Transport{TLSClientConfig: noCert}
	t.Cleanup(tr2.CloseIdleConnections)
	resp, err = (&http.Client{Transport: tr2}).Get(s.URL() + cmPath)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	kc := string(s.Kubeconfig())
	assert.Contains(t, kc, "certificate-authority-data: ")
	assert.Contains(t, kc, "client-certificate-data: ")
	assert.Contains(t, kc, "client-key-data: ")
}

func TestWatchOverHTTP2IsCutMidFrame(t *testing.T) {
	s := NewForTest(t, Options{TLS: true})
	tr := &http.Transport{TLSClientConfig: s.ClientTLSConfig(), ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	c := &testClient{t: t, base: s.URL(), http: &http.Client{Transport: tr}}
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	w := c.watch(cmPath + "?watch=1&resourceVersion=" + rvOf(t, a))
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	assert.Equal(t, "ADDED", w.next().Type)
	require.Equal(t, 1, s.CutWatches(request.Match{Resource: "configmaps"}, CutMidFrame))
	err := w.end()
	assert.Error(t, err, "a stream reset mid-frame is an error for the client")
	assert.Equal(t, http.StatusOK, c.get(cmPath).code, "other streams on the connection are unaffected")
}
