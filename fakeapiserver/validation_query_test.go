package fakeapiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// Absurd query values get the real kube-apiserver v1.37.2's code and
// message, except that the fake server never answers 500: a watch at an
// unparseable resourceVersion, a 500 on a real server, is a 400 naming the
// parameter (docs/fidelity.md, "Accepted differences").
func TestAbsurdQueryValues(t *testing.T) {
	s := NewForTest(t, Options{})
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"q"}}`
	require.Equal(t, http.StatusCreated, serve(s, http.MethodPost, cmsPath, "application/json", cm).Code)
	cases := []struct {
		method, query, body string
		code                int
		message             string
	}{
		{"GET", "watch=1&resourceVersion=abc", "", 400, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"GET", "watch=1&resourceVersion=-1", "", 400, `invalid resource version: resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax`},
		{"GET", "watch=1&resourceVersion=99999999999999999999", "", 400, `invalid resource version: resourceVersion: Invalid value: "99999999999999999999": strconv.ParseUint: parsing "99999999999999999999": value out of range`},
		{"GET", "resourceVersion=abc", "", 400, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"GET", "limit=-1", "", 200, ""},
		{"GET", "limit=99999999999999999999", "", 400, `strconv.ParseInt: parsing "99999999999999999999": value out of range`},
		{"GET", "watch=1&timeoutSeconds=1e12", "", 400, `strconv.ParseInt: parsing "1e12": invalid syntax`},
		{"GET", "watch=1&timeoutSeconds=-5", "", 200, ""},
		{"GET", "timeoutSeconds=abc", "", 400, `strconv.ParseInt: parsing "abc": invalid syntax`},
		{"GET", "resourceVersionMatch=Exact", "", 422, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{"GET", "continue=garbage", "", 400, `invalid continue token: continue key is not valid: invalid character '\u0081' looking for beginning of value`},
		{"GET", "watch=1&continue=garbage", "", 422, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`},
		{"GET", "watch=1&sendInitialEvents=abc", "", 422, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`},
		{"GET", "allowWatchBookmarks=abc", "", 200, ""},
		{"POST", "fieldValidation=Bogus", cm, 422, `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"`},
		{"POST", "dryRun=Bogus", cm, 422, `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus"]: supported values: "All"`},
		{"POST", "dryRun=All&fieldManager=%00", cm, 422, `CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "\x00": invalid character U+0000 (at position 0)`},
		{"POST", "dryRun=All&fieldManager=" + strings.Repeat("a", 129) + "%01", cm, 422, `CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Too long: may not be more than 128 bytes, fieldManager: Invalid value: "` + strings.Repeat("a", 129) + `\x01": invalid character U+0001 (at position 129)]`},
		{"DELETE", "dryRun=All&propagationPolicy=Bogus", "", 422, `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"`},
		{"DELETE", "dryRun=All", `{"propagationPolicy":"Bogus"}`, 422, `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"`},
		{"DELETE", "dryRun=All&gracePeriodSeconds=-5", "", 200, ""},
		{"DELETE", "dryRun=All", `{"gracePeriodSeconds":-5}`, 200, ""},
		{"DELETE", "dryRun=Bogus&dryRun=All", "", 422, `DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Bogus","All"]: supported values: "All"`},
		{"DELETE", "dryRun=All&orphanDependents=abc", "", 200, ""},
	}
	for _, c := range cases {
		path := cmsPath
		if c.method == http.MethodDelete {
			path += "/q"
		}
		req := httptest.NewRequest(c.method, path+"?"+c.query, strings.NewReader(c.body))
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		// A watch answered 200 ends with its context.
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req.WithContext(ctx))
		cancel()
		want := c.code
		if want == 200 && c.method == http.MethodPost {
			want = 201
		}
		if !assert.Equal(t, want, rec.Code, "%s ?%s: %s", c.method, c.query, rec.Body) || c.message == "" {
			continue
		}
		var st meta.Status
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
		assert.Equal(t, c.message, st.Message, "%s ?%s", c.method, c.query)
		assert.EqualValues(t, c.code, st.Code)
	}
}
