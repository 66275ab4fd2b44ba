package reliability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/reliability"
	"github.com/kubecache/kubecache/meta"
)

// The fake API server's answers to what a client may send: every bad
// request gets the code the real server gives, with a Status body, never a
// 500 and never a panic (a panic is recovered as a 500, so "never 500"
// covers both).

const cmCollection = "/api/v1/namespaces/default/configmaps"

// badInput is one request and the code it must get.
type badInput struct {
	what    string
	method  string
	path    string
	query   string
	headers map[string]string
	body    io.Reader
	// length, when set, is sent as Content-Length (0: chunked or none).
	length int64
	want   int
	// msg, when set, must be in the answer's Status message.
	msg string
	// realServer500 marks a row whose 500 is what kube-apiserver answers
	// too (asked of v1.37.2), so the "never 500" rule does not apply.
	realServer500 bool
	// gap says why the fake server does not give the wanted code yet; the
	// row is skipped.
	gap string
}

func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

func badInputs() []badInput {
	js := map[string]string{"Content-Type": "application/json"}
	yml := map[string]string{"Content-Type": "application/yaml"}
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"}}`
	big := func() io.Reader { return io.LimitReader(repeatByte(0), 2<<20) }
	return []badInput{
		{what: "malformed JSON", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(`{"metadata":{"name":"a"`), want: 400},
		{what: "malformed YAML", method: "POST", path: cmCollection, headers: yml, body: strings.NewReader("metadata:\n  name: [a\n"), want: 400},
		{what: "a JSON array for an object", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(`[1,2]`), want: 400},
		{what: "wrong type: name is a number", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5}}`), want: 400},
		{what: "wrong type: data is a list", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":[1]}`), want: 400},
		{what: "wrong type: replicas is a string", method: "POST", path: "/apis/apps/v1/namespaces/default/deployments", headers: js, body: strings.NewReader(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"},"spec":{"replicas":"two"}}`), want: 400},
		{what: "wrong type: a quantity that does not parse", method: "POST", path: "/api/v1/namespaces/default/pods", headers: js, body: strings.NewReader(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":true}}}]}}`), want: 400},
		{what: "wrong type in a merge patch's result", method: "PATCH", path: cmCollection + "/present", headers: map[string]string{"Content-Type": "application/merge-patch+json"}, body: strings.NewReader(`{"data":{"a":1}}`), want: 422},
		{what: "wrong type in an apply configuration", method: "PATCH", path: cmCollection + "/present", query: "fieldManager=m", headers: map[string]string{"Content-Type": "application/apply-patch+yaml"}, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"present"},"data":[1]}`), want: 400},
		{what: "a control character in fieldManager", method: "POST", path: cmCollection, query: "fieldManager=%01", headers: js, body: strings.NewReader(fmt.Sprintf(cm, "a")), want: 422},
		{what: "unknown field with fieldValidation=Strict", method: "POST", path: cmCollection, query: "fieldValidation=Strict", headers: js, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"bogus":1}`), want: 400},
		{what: "wrong kind for the resource", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"}}`), want: 400},
		{what: "JSON nested 100,000 deep", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(nested(100000)), want: 400},
		{what: "huge body with Content-Length (2 MiB over a 1 MiB bound)", method: "POST", path: cmCollection, headers: js, body: big(), length: 2 << 20, want: 413},
		{what: "YAML of 100 KiB whose anchor is aliased 20 times (2 MiB of JSON over a 1 MiB bound)", method: "POST", path: cmCollection, headers: yml,
			body: strings.NewReader(aliasBomb(100<<10, 20)), want: 413},
		{what: "huge body, chunked (no Content-Length)", method: "POST", path: cmCollection, headers: js, body: big(), want: 413},
		{what: "bad label selector", method: "GET", path: cmCollection, query: "labelSelector=a%20in%20(b", want: 400},
		{what: "bad field selector", method: "GET", path: cmCollection, query: "fieldSelector=metadata.name", want: 400},
		{what: "unknown field in a field selector", method: "GET", path: cmCollection, query: "fieldSelector=spec.bogus%3Dx", want: 400},
		{what: "unknown resource", method: "GET", path: "/api/v1/namespaces/default/bogons", want: 404},
		{what: "unknown group", method: "GET", path: "/apis/nope.example.com/v1/widgets", want: 404},
		{what: "path traversal", method: "GET", path: "/api/v1/namespaces/../../etc/passwd", want: 404},
		{what: "wrong method: PUT on a collection", method: "PUT", path: cmCollection, headers: js, body: strings.NewReader(fmt.Sprintf(cm, "a")), want: 405},
		{what: "wrong method: POST on an object", method: "POST", path: cmCollection + "/a", headers: js, body: strings.NewReader(fmt.Sprintf(cm, "a")), want: 405},
		{what: "wrong method: TRACE", method: "TRACE", path: cmCollection, want: 405},
		{what: "unsupported patch type (application/json)", method: "PATCH", path: cmCollection + "/present", headers: js, body: strings.NewReader(`{"data":{"a":"b"}}`), want: 415},
		{what: "unsupported patch type (text/plain)", method: "PATCH", path: cmCollection + "/present", headers: map[string]string{"Content-Type": "text/plain"}, body: strings.NewReader(`x`), want: 415},
		{what: "strategic merge patch on a custom resource", method: "PATCH", path: "/apis/example.com/v1/namespaces/default/widgets/w", headers: map[string]string{"Content-Type": "application/strategic-merge-patch+json"}, body: strings.NewReader(`{}`), want: 415},
		{what: "malformed JSON patch", method: "PATCH", path: cmCollection + "/present", headers: map[string]string{"Content-Type": "application/json-patch+json"}, body: strings.NewReader(`[{"op":`), want: 400},
		{what: "JSON patch on a missing path", method: "PATCH", path: cmCollection + "/present", headers: map[string]string{"Content-Type": "application/json-patch+json"}, body: strings.NewReader(`[{"op":"replace","path":"/nope/x","value":1}]`), want: 422},
		{what: "invalid name (upper case)", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(fmt.Sprintf(cm, "Not_Valid")), want: 422},
		{what: "a generateName of 300 characters", method: "POST", path: cmCollection, headers: js,
			body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"` + strings.Repeat("a", 300) + `"}}`), want: 422,
			msg: "metadata.generateName: Invalid value: \"" + strings.Repeat("a", 300) + "\": must be no more than 253 characters"},
		{what: "invalid name (too long)", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(fmt.Sprintf(cm, strings.Repeat("a", 254))), want: 422},
		{what: "name in the body differs from the URL", method: "PUT", path: cmCollection + "/present", headers: js, body: strings.NewReader(fmt.Sprintf(cm, "other")), want: 400},
		{what: "namespace in the body differs from the URL", method: "POST", path: cmCollection, headers: js, body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"kube-system"}}`), want: 400},
		{what: "limit=-1", method: "GET", path: cmCollection, query: "limit=-1", want: 200},
		{what: "a create whose timeout (1ns) has passed before it commits", method: "POST", path: cmCollection, query: "timeout=1ns", headers: js,
			body: strings.NewReader(fmt.Sprintf(cm, "too-late")), want: 504, msg: "Timeout: request did not complete within requested timeout"},
		{what: "timeout=zz on a list", method: "GET", path: cmCollection, query: "timeout=zz", want: 400,
			msg: `invalid timeout specified in the request URL - time: invalid duration "zz"`},
		{what: "limit=abc", method: "GET", path: cmCollection, query: "limit=abc", want: 400},
		{what: "timeoutSeconds=1e12", method: "GET", path: cmCollection, query: "watch=1&timeoutSeconds=1e12", want: 400},
		{what: "timeoutSeconds=10^12 (past a Duration) on a watch", method: "GET", path: cmCollection, query: "watch=1&timeoutSeconds=1000000000000", want: 200},
		{what: "resourceVersion=abc", method: "GET", path: cmCollection, query: "resourceVersion=abc", want: 400},
		{what: "resourceVersion=abc on a watch", method: "GET", path: cmCollection, query: "watch=1&resourceVersion=abc", want: 400},
		{what: "fieldValidation=Bogus", method: "POST", path: cmCollection, query: "fieldValidation=Bogus", headers: js, body: strings.NewReader(fmt.Sprintf(cm, "a")), want: 422},
		{what: "dryRun=Bogus", method: "POST", path: cmCollection, query: "dryRun=Bogus", headers: js, body: strings.NewReader(fmt.Sprintf(cm, "a")), want: 422},
		{what: "resourceVersionMatch without resourceVersion", method: "GET", path: cmCollection, query: "resourceVersionMatch=Exact", want: 422},
		{what: "resourceVersionMatch=Sometimes", method: "GET", path: cmCollection, query: "resourceVersion=1&resourceVersionMatch=Sometimes", want: 422},
		{what: "sendInitialEvents on a list", method: "GET", path: cmCollection, query: "sendInitialEvents=true", want: 422},
		{what: "continue=garbage", method: "GET", path: cmCollection, query: "continue=garbage", want: 400},
		{what: "resourceVersion with continue", method: "GET", path: cmCollection, query: "resourceVersion=5&continue=x", want: 400},
		{what: "a resourceVersion far in the future", method: "GET", path: cmCollection, query: "resourceVersion=99999999&resourceVersionMatch=NotOlderThan", want: 504},
		{what: "unsupported Accept", method: "GET", path: cmCollection, headers: map[string]string{"Accept": "application/x-bogus"}, want: 406},
		{what: "impersonating a group without a user", method: "GET", path: cmCollection, headers: map[string]string{"Impersonate-Group": "system:masters"}, want: 400},
		{what: "a control character in a name", method: "GET", path: cmCollection + "/a%00b", want: 404},
		{what: "propagationPolicy=Bogus on delete", method: "DELETE", path: cmCollection + "/present", query: "propagationPolicy=Bogus", want: 422},
		{what: "gracePeriodSeconds=-5 on delete (dry run)", method: "DELETE", path: cmCollection + "/present", query: "gracePeriodSeconds=-5&dryRun=All", want: 200},
		{what: "gracePeriodSeconds=abc on delete", method: "DELETE", path: cmCollection + "/present", query: "gracePeriodSeconds=abc", want: 400},
		{what: "malformed DeleteOptions body", method: "DELETE", path: cmCollection + "/present", headers: js, body: strings.NewReader(`{"propagationPolicy":`), want: 400},
		{what: "unknown propagationPolicy", method: "DELETE", path: cmCollection + "/present", headers: js, body: strings.NewReader(`{"propagationPolicy":"Sideways"}`), want: 422},
		{what: "a JSON patch of 18 copies (1.1 KB) doubling a 64 KiB value", method: "PATCH", path: cmCollection + "/copysrc", query: "dryRun=All",
			headers: map[string]string{"Content-Type": "application/json-patch+json"}, body: strings.NewReader(copyBomb(18)), want: 422,
			msg: "the server rejected our request due to an error in our request"},
		{what: "a strategic merge patch with an object for $setElementOrder/finalizers", method: "PATCH", path: cmCollection + "/present",
			headers: map[string]string{"Content-Type": "application/strategic-merge-patch+json"}, body: strings.NewReader(`{"metadata":{"$setElementOrder/finalizers":{"a":1}}}`),
			want: 500, realServer500: true, msg: "expected a []interface {}, but received a map[string]interface {}"},
		{what: "server-side apply without fieldManager", method: "PATCH", path: cmCollection + "/present", headers: map[string]string{"Content-Type": "application/apply-patch+yaml"}, body: strings.NewReader(fmt.Sprintf(cm, "present")), want: 422},
	}
}

func TestBadInputsAreRefusedWithTheRightCode(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{MaxRequestBodyBytes: 1 << 20, TooLargeResourceVersionWait: 10 * time.Millisecond})
	c := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(c.CloseIdleConnections)
	do := func(in badInput) (*http.Response, []byte) {
		// Each request is bounded; a watch answered 200 is not read.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		u := srv.URL() + in.path
		if in.query != "" {
			u += "?" + in.query
		}
		req, err := http.NewRequestWithContext(ctx, in.method, u, in.body)
		require.NoError(t, err)
		if in.body != nil && in.length == 0 {
			req.ContentLength = -1 // chunked
		} else {
			req.ContentLength = in.length
		}
		for k, v := range in.headers {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		require.NoError(t, err, in.what)
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK && strings.Contains(in.query, "watch=") {
			return resp, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return resp, body
	}
	// The objects some requests need.
	resp, _ := do(badInput{method: "POST", path: cmCollection, headers: map[string]string{"Content-Type": "application/json"},
		body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"present"}}`)})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	resp, _ = do(badInput{method: "POST", path: cmCollection, headers: map[string]string{"Content-Type": "application/json"},
		body: strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"copysrc"},"data":{"a":"` + strings.Repeat("x", 64<<10) + `"}}`)})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	resp, _ = do(badInput{method: "POST", path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", headers: map[string]string{"Content-Type": "application/json"}, body: strings.NewReader(widgetCRD)})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	resp, _ = do(badInput{method: "POST", path: "/apis/example.com/v1/namespaces/default/widgets", headers: map[string]string{"Content-Type": "application/json"},
		body: strings.NewReader(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)})
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	tab := reliability.Table{Header: []string{"request", "sent", "want", "got"}}
	for _, in := range badInputs() {
		sent := in.method + " " + in.path
		if in.query != "" {
			sent += "?" + in.query
		}
		if len(sent) > 80 {
			sent = sent[:77] + "..."
		}
		t.Run(in.what, func(t *testing.T) {
			if in.gap != "" {
				tab.Rows = append(tab.Rows, []string{in.what, "`" + sent + "`", fmt.Sprint(in.want), "GAP: " + in.gap})
				t.Skipf("the fake server does not answer this yet: %s", in.gap)
			}
			resp, body := do(in)
			tab.Rows = append(tab.Rows, []string{in.what, "`" + sent + "`", fmt.Sprint(in.want), fmt.Sprint(resp.StatusCode)})
			assert.Equal(t, in.want, resp.StatusCode, "%s: %s", in.what, body)
			if !in.realServer500 {
				assert.NotEqual(t, http.StatusInternalServerError, resp.StatusCode)
			}
			if resp.StatusCode >= 400 && !bytes.HasPrefix(body, []byte("{")) {
				// The real server answers some unknown paths with a
				// plain "404 page not found"; the body must still say
				// something.
				assert.NotEmpty(t, body, "%s: an empty error body", in.what)
			} else if resp.StatusCode >= 400 {
				var st meta.Status
				if assert.NoError(t, json.Unmarshal(body, &st), "%s: the error body is not a Status: %s", in.what, body) {
					assert.EqualValues(t, resp.StatusCode, st.Code, "%s: Status.code", in.what)
					assert.NotEmpty(t, st.Message, "%s: the Status says nothing", in.what)
					assert.Contains(t, st.Message, in.msg, "%s: the Status message", in.what)
				}
			}
		})
	}
	t.Logf("bad inputs (go test ./internal/reliability -run TestBadInputs -v):\n%s", tab.Markdown())
	// The server is still serving.
	resp, _ = do(badInput{method: "GET", path: cmCollection})
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// copyBomb is a JSON patch of n operations each copying /data into
// itself: every copy doubles the document.
func copyBomb(n int) string {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i)
	}
	return "[" + strings.Join(ops, ",") + "]"
}

// FuzzHandlerWithAuth drives the fake server's handler, with
// authentication and forbid rules on, with random methods, paths, queries,
// raw header blocks and bodies: it must never panic and never answer 500
// (other than the real server's one 500, for a create that sets
// resourceVersion); an unauthenticated request is always 401.
func FuzzHandlerWithAuth(f *testing.F) {
	seeds := []struct{ method, path, query, headers, body string }{
		{"GET", cmCollection, "watch=1", "Authorization: Bearer " + testToken, ""},
		{"POST", cmCollection, "", "Authorization: Bearer " + testToken + "\nContent-Type: application/json", `{"metadata":{"name":"a"}}`},
		{"GET", cmCollection, "", "Authorization: Bearer wrong", ""},
		{"GET", cmCollection, "", "Authorization: Bearer " + testToken + "\nImpersonate-User: dev\nImpersonate-Group: a", ""},
		{"GET", "/api/v1/namespaces/default/secrets", "", "Authorization: bearer dev-token", ""},
		{"GET", cmCollection, "watch=1", "Connection: Upgrade\nUpgrade: websocket\nSec-WebSocket-Version: 13\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\nSec-WebSocket-Protocol: base64url.bearer.authorization.k8s.io.a2Mtc2VjcmV0", ""},
		{"PATCH", cmCollection + "/a", "fieldManager=x", "Authorization: Bearer dev-token\nContent-Type: application/apply-patch+yaml", "metadata: {name: a}"},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.query, s.headers, s.body)
	}
	srv := fakeapiserver.New(fakeapiserver.Options{
		Seed: 7, MinRequestTimeout: time.Millisecond, TooLargeResourceVersionWait: time.Millisecond, CompactionInterval: -1,
		Tokens: map[string]fakeapiserver.User{testToken: {Name: "admin", Groups: []string{"system:masters"}}, "dev-token": {Name: "dev"}},
		Forbid: []fakeapiserver.ForbidRule{{User: "dev", Match: fakeapiserver.Match{Resource: "secrets"}}, {User: "dev", Match: fakeapiserver.Match{Verb: "impersonate"}}},
	})
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, method, path, query, headers, body string) {
		if !validMethod(method) {
			return // net/http never hands a handler such a request
		}
		u := &url.URL{Path: "/" + strings.TrimPrefix(path, "/"), RawQuery: query}
		req := httptest.NewRequest(http.MethodGet, "http://fake/", strings.NewReader(body))
		req.Method, req.URL, req.RequestURI = method, u, u.RequestURI()
		authenticated := false
		for _, line := range strings.Split(headers, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok || !validHeaderName(k) {
				continue
			}
			v = strings.TrimSpace(v)
			req.Header.Add(k, v)
		}
		if h := req.Header.Get("Authorization"); h != "" {
			// As the real server splits it: "Bearer  t" (two spaces)
			// carries an empty token.
			parts := strings.SplitN(strings.TrimSpace(h), " ", 3)
			authenticated = len(parts) >= 2 && strings.EqualFold(parts[0], "Bearer") && (parts[1] == testToken || parts[1] == "dev-token")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req.WithContext(ctx))
		public := map[string]bool{"/healthz": true, "/readyz": true, "/livez": true, "/version": true}
		if !authenticated && !public[strings.TrimSuffix(u.Path, "/")] && !strings.Contains(strings.ToLower(req.Header.Get("Upgrade")), "websocket") {
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "%s %s without credentials: %s", method, u, rec.Body.Bytes())
		}
		if rec.Code == http.StatusInternalServerError {
			var st meta.Status
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
			assert.Equal(t, "resourceVersion should not be set on objects to be created", st.Message, "%s %s -> 500 %s", method, u, rec.Body.Bytes())
		}
	})
}

// validMethod reports whether m is an HTTP token, as net/http requires.
func validMethod(m string) bool {
	return m != "" && validHeaderName(m)
}

// validHeaderName reports whether s is an HTTP token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`()<>@,;:\"/[]?={}`), c) >= 0 {
			return false
		}
	}
	return true
}
