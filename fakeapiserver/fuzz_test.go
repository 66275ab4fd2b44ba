package fakeapiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// FuzzHandler throws random methods, paths, queries, headers and bodies at
// the handler and checks it never panics and never answers 500 except
// where the real server does (a create that sets resourceVersion). Its
// seeds include wrong-type bodies for create, update, every patch type and
// apply, so the schema walk is driven too.
func FuzzHandler(f *testing.F) {
	seeds := []struct{ method, path, query, ctype, accept, body string }{
		{"GET", "/api/v1/namespaces/default/configmaps", "limit=1", "", "", ""},
		{"GET", "/api/v1/configmaps", "watch=1&resourceVersion=0&allowWatchBookmarks=true", "", "", ""},
		{"POST", "/api/v1/namespaces/default/configmaps", "", "application/json", "", `{"metadata":{"name":"a"},"data":{"x":"y"}}`},
		{"POST", "/api/v1/namespaces/default/configmaps", "dryRun=All", "application/yaml", "", "metadata:\n  generateName: x-\n"},
		{"PUT", "/api/v1/namespaces/default/configmaps/a", "", "application/json", "", `{"metadata":{"name":"a","resourceVersion":"x"}}`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/a", "", "application/json-patch+json", "", `[{"op":"move","from":"/data","path":"/data/x"}]`},
		{"PATCH", "/apis/apps/v1/namespaces/default/deployments/d/status", "", "application/merge-patch+json", "", `{"status":null}`},
		{"DELETE", "/api/v1/namespaces/default/pods", "labelSelector=a%20in%20(b)", "application/json", "", `{"propagationPolicy":"Orphan"}`},
		{"GET", "/apis/apps/v1/watch/namespaces/x/deployments/y", "fieldSelector=metadata.name%3Dz", "", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", ""},
		{"GET", "/api/v1/namespaces/default/configmaps", "continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi8ifQ", "", "", ""},
		{"POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", "", `{"metadata":{"name":"ws.x.io"},"spec":{"group":"x.io","names":{"plural":"ws","kind":"W"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}]}}`},
		{"GET", "/apis", "", "", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", ""},
		{"GET", "/openapi/v3/api/v1", "", "", "", ""},
		{"POST", "/api/v1/namespaces/default/pods/p/eviction", "dryRun=All", "application/json", "", `{"metadata":{"name":"p"},"deleteOptions":{"preconditions":{"uid":"x"}}}`},
		{"DELETE", "/api/v1/namespaces/kube-public", "gracePeriodSeconds=-5", "", "", ""},
		{"GET", "/api/v1/namespaces/default/configmaps", "watch=1&resourceVersion=abc", "", "", ""},
		// Bodies that exercise the schema walk (internal/validation).
		{"POST", "/api/v1/namespaces/default/configmaps", "", "application/json", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t","labels":{"a":1}},"data":[1],"binaryData":{"x":"!!"}}`},
		{"POST", "/apis/apps/v1/namespaces/default/deployments", "fieldValidation=Strict", "application/json", "", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":"two","strategy":{"rollingUpdate":{"maxSurge":1.5}},"template":{"metadata":{"creationTimestamp":"x"},"spec":{"containers":[{"name":"c","bogus":1,"resources":{"limits":{"cpu":true,"memory":"1Ki5"}}}],"activeDeadlineSeconds":1e30}}}}`},
		{"PUT", "/api/v1/namespaces/default/pods/p", "", "application/json", "", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":{}},"spec":{"hostNetwork":"true","nodeSelector":{"a":null}}}`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/a", "fieldValidation=Strict", "application/merge-patch+json", "", `{"data":{"x":true},"bogus":[]}`},
		{"PATCH", "/api/v1/namespaces/default/configmaps/a", "", "application/strategic-merge-patch+json", "", `{"data":[1]}`},
		{"PATCH", "/apis/apps/v1/namespaces/default/deployments/d", "fieldManager=f", "application/apply-patch+yaml", "", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: x}\n"},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.query, s.ctype, s.accept, s.body)
	}
	s := New(Options{Seed: 3, MinRequestTimeout: time.Millisecond, TooLargeResourceVersionWait: time.Millisecond, CompactionInterval: -1})
	f.Cleanup(s.Close)
	// A custom resource with a structural schema, for the seeds that
	// drive the CRD schema walk (internal/validation).
	if rec := serve(s, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", typedGadgetCRD); rec.Code != http.StatusCreated {
		f.Fatalf("creating the CRD: %d %s", rec.Code, rec.Body)
	}
	for _, body := range []string{
		`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":1.5,"port":true,"tags":[1],"m":{"a":1},"sub":{"b":1},"free":{"x":[]}},"top":1}`,
		`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","labels":{"a":1}},"spec":"x"}`,
	} {
		f.Add("POST", typedGadgetsPath, "fieldValidation=Strict", "application/json", "", body)
		f.Add("PUT", typedGadgetsPath+"/g", "", "application/json", "", body)
	}
	f.Add("PATCH", typedGadgetsPath+"/g", "", "application/merge-patch+json", "", `{"spec":{"on":"yes","opt":null,"size":null}}`)
	f.Fuzz(func(t *testing.T, method, path, query, ctype, accept, body string) {
		u := &url.URL{Path: path, RawQuery: query}
		if !strings.HasPrefix(path, "/") {
			u.Path = "/" + path
		}
		req := httptest.NewRequest(http.MethodGet, "http://fake/", strings.NewReader(body))
		req.Method = method
		req.URL = u
		req.RequestURI = u.RequestURI()
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		req = req.WithContext(ctx)
		rec := httptest.NewRecorder()
		func() {
			defer func() {
				if p := recover(); p != nil && p != http.ErrAbortHandler {
					t.Fatalf("panic: %v", p)
				}
			}()
			s.ServeHTTP(rec, req)
		}()
		require.Zero(t, s.panics.Load(), "%s %s?%s: the handler panicked", method, path, query)
		if rec.Code == http.StatusInternalServerError {
			var st meta.Status
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
			// The real server's one 500 the fake server keeps: a create
			// that sets resourceVersion.
			assert.Equal(t, "resourceVersion should not be set on objects to be created", st.Message, "%s %s?%s -> 500 %s", method, path, query, rec.Body.Bytes())
		}
	})
}
