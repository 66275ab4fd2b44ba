package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectl against the built-in kinds' rules, answered as a real
// kube-apiserver v1.37.2 answers (no kubelet).

func TestKubectlCreateTokenIsAcceptedByTheServer(t *testing.T) {
	// kubectl sends its token only over TLS.
	s := NewForTest(t, Options{TLS: true, Tokens: map[string]User{"admin-token": {Name: "admin", Groups: []string{"system:masters"}}}})
	tr := &http.Transport{TLSClientConfig: s.ClientTLSConfig()}
	t.Cleanup(tr.CloseIdleConnections)
	c := &testClient{t: t, base: s.URL(), http: &http.Client{Transport: tr}}
	k := newKubectl(t, s)
	assert.Equal(t, "serviceaccount/bot created\n", k.run("create", "serviceaccount", "bot"))
	token := strings.TrimSpace(k.run("create", "token", "bot", "--duration", "20m"))
	require.Equal(t, 2, strings.Count(token, "."), "a JWT")

	// The server's authenticator accepts it for API requests.
	r := c.do(http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, "Authorization", "Bearer "+token)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Contains(t, string(r.body), `"username":"system:serviceaccount:default:bot"`)

	// TokenReview answers as the real server does.
	admin := []string{"Authorization", "Bearer admin-token"}
	r = c.do(http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"`+token+`"}}`, admin...)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	st := r.object(t)["status"].(map[string]any)
	assert.Equal(t, true, st["authenticated"])
	user := st["user"].(map[string]any)
	assert.Equal(t, "system:serviceaccount:default:bot", user["username"])
	assert.Equal(t, []any{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}, user["groups"])
	r = c.do(http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"`+token+`","audiences":["zzz"]}}`, admin...)
	assert.Equal(t, `[invalid bearer token, token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["zzz"]]`,
		r.object(t)["status"].(map[string]any)["error"])

	_, errOut, err := k.try("create", "token", "nobody")
	require.Error(t, err)
	assert.Equal(t, "error: failed to create token: serviceaccounts \"nobody\" not found\n", errOut)
	_, errOut, err = k.try("create", "token", "bot", "--duration", "1m")
	require.Error(t, err)
	assert.Contains(t, errOut, `spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`)
}

func TestKubectlLogsAndExecWithoutKubelet(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	c.mustCreate("/api/v1/namespaces/default/pods", `{"metadata":{"name":"p"},"spec":`+validPodSpec+`}`)
	assert.Equal(t, "", k.run("logs", "p"), "an unscheduled pod's log is empty (204)")
	_, errOut, err := k.try("exec", "p", "--", "ls")
	require.Error(t, err)
	assert.Contains(t, errOut, "pod p does not have a host assigned")
	_, errOut, err = k.try("logs", "p", "-c", "x")
	require.Error(t, err)
	assert.Equal(t, "error: container x is not valid for pod p\n", errOut)
}

func TestKubectlSecretStringData(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	k := newKubectl(t, s)
	f := k.file("s.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: hunter2}\n")
	assert.Equal(t, "secret/s created\n", k.run("apply", "-f", f))
	out := k.run("get", "secret", "s", "-o", "jsonpath={.type} {.data.password} {.stringData}")
	assert.Equal(t, "Opaque aHVudGVyMg== ", out, "stringData is merged into data and dropped; the type is defaulted")
}

func TestKubectlGetRawMetrics(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, c.post(cmPath, `{"metadata":{"name":"Bad_Name"}}`).code)
	out := k.run("get", "--raw", "/metrics")
	for _, line := range []string{
		"# TYPE apiserver_request_total counter",
		`apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"} 1`,
		`apiserver_request_total{code="422",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"} 1`,
		"# TYPE apiserver_request_duration_seconds histogram",
		`apiserver_resource_objects{group="",resource="configmaps"} 1`,
		`apiserver_current_inflight_requests{request_kind="readOnly"} 1`,
	} {
		assert.Contains(t, out, line+"\n")
	}
}
