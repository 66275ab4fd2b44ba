package rest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestURL(t *testing.T) {
	c := newTestClient(t, &Config{Host: "https://example.com:6443/prefix/"})
	tests := []struct {
		name string
		req  *Request
		want string
	}{
		{"core collection", c.Get().Resource("pods"), "/prefix/api/v1/pods"},
		{"core namespaced", c.Get().Namespace("ns").Resource("pods"), "/prefix/api/v1/namespaces/ns/pods"},
		{"core object", c.Get().Namespace("ns").Resource("pods").Name("p"), "/prefix/api/v1/namespaces/ns/pods/p"},
		{"subresource", c.Put().Namespace("ns").Resource("pods").Name("p").SubResource("status"), "/prefix/api/v1/namespaces/ns/pods/p/status"},
		{"grouped", c.Get().Group("apps").Version("v1").Namespace("default").Resource("deployments").Name("web").SubResource("scale"),
			"/prefix/apis/apps/v1/namespaces/default/deployments/web/scale"},
		{"cluster scoped", c.Get().Group("rbac.authorization.k8s.io").Version("v1").Resource("clusterroles"), "/prefix/apis/rbac.authorization.k8s.io/v1/clusterroles"},
		{"empty namespace is all", c.Get().Namespace("").Resource("pods"), "/prefix/api/v1/pods"},
		{"namespace object", c.Get().Resource("namespaces").Name("kube-system"), "/prefix/api/v1/namespaces/kube-system"},
		{"abs path", c.Get().AbsPath("/apis"), "/prefix/apis"},
		{"abs path segments", c.Get().AbsPath("/apis", "apps", "v1"), "/prefix/apis/apps/v1"},
		{"core other version", c.Get().Version("v2").Resource("things"), "/prefix/api/v2/things"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.req.err)
			assert.Equal(t, tt.want, tt.req.URL().Path)
		})
	}

	u := c.Get().Resource("pods").Param("labelSelector", "app=web,tier!=db").Param("limit", "500").URL()
	assert.Equal(t, "app=web,tier!=db", u.Query().Get("labelSelector"))
	assert.Equal(t, "500", u.Query().Get("limit"))
	assert.Equal(t, "https", u.Scheme)
	assert.Equal(t, "example.com:6443", u.Host)
}

func TestRequestBuilderErrors(t *testing.T) {
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request %s reached the server", r.URL)
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	tests := []struct {
		name string
		req  *Request
		want string
	}{
		{"empty name", c.Get().Resource("pods").Name(""), "resource name may not be empty"},
		{"slash in name", c.Get().Resource("pods").Name("a/b"), `resource name "a/b" may not contain`},
		{"dot dot", c.Get().Namespace("..").Resource("pods"), `namespace may not be ".."`},
		{"empty resource", c.Get().Resource(""), "resource may not be empty"},
		{"bad body", c.Post().Resource("pods").Body(func() {}), "encode request body"},
		{"first error kept", c.Get().Resource("").Name(""), "resource may not be empty"},
		{"empty patch type", c.Patch("").Resource("pods").Name("p"), "empty patch type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Do(t.Context()).Error()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidRequest)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// recorded is what a test server saw of one request.
type recorded struct {
	method, path, query, contentType, accept string
	body                                     string
}

func recordingServer(t *testing.T, status int, response string) (*httptest.Server, <-chan recorded) {
	t.Helper()
	seen := make(chan recorded, 10)
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen <- recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("Accept"), string(b)}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, response)
	}))
	return srv, seen
}

func TestDoVerbsAndBodies(t *testing.T) {
	const pod = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","resourceVersion":"7"},"spec":{"nodeName":"n1"}}`
	srv, seen := recordingServer(t, http.StatusOK, pod)
	c := newTestClient(t, &Config{Host: srv.URL})
	ctx := t.Context()

	var got testPod
	require.NoError(t, c.Get().Namespace("ns").Resource("pods").Name("p").Do(ctx).Into(&got))
	assert.Equal(t, "p", got.Name)
	assert.Equal(t, "7", got.ResourceVersion)
	assert.Equal(t, "n1", got.Spec.NodeName)
	r := <-seen
	assert.Equal(t, "GET", r.method)
	assert.Equal(t, "application/json", r.accept)
	assert.Empty(t, r.body)

	in := testPod{}
	in.Name = "p"
	res := c.Post().Namespace("ns").Resource("pods").Body(&in).Do(ctx)
	require.NoError(t, res.Error())
	assert.Equal(t, http.StatusOK, res.StatusCode())
	r = <-seen
	assert.Equal(t, "POST", r.method)
	assert.Equal(t, "application/json", r.contentType)
	assert.JSONEq(t, `{"metadata":{"name":"p"},"spec":{}}`, r.body)

	raw := []byte(`{"metadata":{"labels":{"a":"b"}}}`)
	require.NoError(t, c.Patch(MergePatchType).Namespace("ns").Resource("pods").Name("p").Param("fieldManager", "kubecache").Body(raw).Do(ctx).Error())
	r = <-seen
	assert.Equal(t, "PATCH", r.method)
	assert.Equal(t, string(MergePatchType), r.contentType)
	assert.Equal(t, string(raw), r.body)
	assert.Equal(t, "fieldManager=kubecache", r.query)

	require.NoError(t, c.Put().Namespace("ns").Resource("pods").Name("p").Body(strings.NewReader("{}")).Do(ctx).Error())
	r = <-seen
	assert.Equal(t, "PUT", r.method)
	assert.Equal(t, "{}", r.body)

	require.NoError(t, c.Delete().Namespace("ns").Resource("pods").Name("p").Body(map[string]string{"propagationPolicy": "Background"}).Do(ctx).Error())
	r = <-seen
	assert.Equal(t, "DELETE", r.method)
	assert.JSONEq(t, `{"propagationPolicy":"Background"}`, r.body)

	b, err := c.Get().AbsPath("/version").SetHeader("Accept", "application/yaml").Do(ctx).Raw()
	require.NoError(t, err)
	assert.Equal(t, pod, string(b))
	r = <-seen
	assert.Equal(t, "application/yaml", r.accept)

	res = c.Get().Resource("pods").Timeout(5 * time.Second).Do(ctx)
	require.NoError(t, res.Error())
	r = <-seen
	assert.Equal(t, "timeout=5s", r.query)
}

func TestResultIntoErrors(t *testing.T) {
	srv, _ := recordingServer(t, http.StatusOK, `{"kind":`)
	c := newTestClient(t, &Config{Host: srv.URL})
	var v map[string]any
	err := c.Get().Resource("pods").Do(t.Context()).Into(&v)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "decode response")

	srv2, _ := recordingServer(t, http.StatusOK, ``)
	c2 := newTestClient(t, &Config{Host: srv2.URL})
	err = c2.Get().Resource("pods").Do(t.Context()).Into(&v)
	assert.ErrorContains(t, err, "empty body")
}

func TestDoContextAndTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	c := newTestClient(t, &Config{Host: srv.URL, Timeout: 50 * time.Millisecond})
	err := c.Get().Resource("pods").Do(context.Background()).Error()
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	c2 := newTestClient(t, &Config{Host: srv.URL})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err = c2.Get().Resource("pods").Do(ctx).Error()
	assert.ErrorIs(t, err, context.Canceled)
}

func TestStream(t *testing.T) {
	srv, _ := recordingServer(t, http.StatusOK, "log line 1\nlog line 2\n")
	c := newTestClient(t, &Config{Host: srv.URL})
	rc, err := c.Get().Namespace("ns").Resource("pods").Name("p").SubResource("log").Stream(t.Context())
	require.NoError(t, err)
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	assert.Equal(t, "log line 1\nlog line 2\n", string(b))

	srv2, _ := recordingServer(t, http.StatusNotFound, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"pods \"p\" not found"}`)
	c2 := newTestClient(t, &Config{Host: srv2.URL})
	_, err = c2.Get().Namespace("ns").Resource("pods").Name("p").SubResource("log").Stream(t.Context())
	assert.True(t, IsNotFound(err), "Stream error %v is not NotFound", err)
}

func TestBodyJSONRawMessage(t *testing.T) {
	srv, seen := recordingServer(t, http.StatusCreated, `{}`)
	c := newTestClient(t, &Config{Host: srv.URL})
	res := c.Post().Resource("namespaces").Body(json.RawMessage(`{"metadata":{"name":"x"}}`)).Do(t.Context())
	require.NoError(t, res.Error())
	assert.Equal(t, http.StatusCreated, res.StatusCode())
	assert.Equal(t, `{"metadata":{"name":"x"}}`, (<-seen).body)
}

func TestResultWarnings(t *testing.T) {
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Warning", `299 - "unknown field \"bogus\""`)
		w.Header().Add("Warning", `299 - "v1beta1 is deprecated" "Wed, 21 Oct 2015 07:28:00 GMT"`)
		w.Header().Add("Warning", `199 - "not a 299"`)
		w.Header().Add("Warning", `garbage`)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{}`)
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	res := c.Post().Resource("configmaps").Body([]byte(`{}`)).Do(t.Context())
	require.NoError(t, res.Error())
	assert.Equal(t, []string{`unknown field "bogus"`, "v1beta1 is deprecated"}, res.Warnings())
	assert.Nil(t, Result{}.Warnings())
}
