package fakeapiserver

import (
	"net/http"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/metrics"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// /metrics: every request counted under the real server's metric names
// and labels (internal/metrics).

// metricVerbs maps request verbs to the real server's verb label.
var metricVerbs = map[string]string{
	"get": "GET", "list": "LIST", "watch": "WATCH", "create": "POST", "update": "PUT",
	"patch": "PATCH", "delete": "DELETE", "deletecollection": "DELETECOLLECTION",
}

// requestMetric labels a finished request as the real server does.
func requestMetric(r *http.Request, code int, took time.Duration) metrics.Request {
	info, isResource := request.ParsePath(r)
	m := metrics.Request{Code: code, Duration: took}
	if !isResource || info.Discovery || info.Resource == "" {
		// Paths outside the API are labelled by path alone.
		m.Verb, m.Subresource = r.Method, r.URL.Path
		return m
	}
	m.Component = "apiserver"
	m.Group, m.Version, m.Resource, m.Subresource = info.Group, info.Version, info.Resource, info.Subresource
	m.Verb = metricVerbs[info.Verb]
	if m.Verb == "" {
		m.Verb = r.Method
	}
	if m.Verb == "PATCH" && strings.HasPrefix(r.Header.Get("Content-Type"), "application/apply-patch") {
		m.Verb = "APPLY"
	}
	switch info.Subresource {
	case "exec", "attach", "portforward", "proxy":
		m.Verb = "CONNECT"
	}
	switch {
	case info.Name != "" || info.Verb == "create":
		m.Scope = "resource"
	case info.Namespace != "":
		m.Scope = "namespace"
	default:
		m.Scope = "cluster"
	}
	if strings.Contains(r.URL.RawQuery, "dryRun=All") {
		m.DryRun = "All"
	}
	return m
}

// serveMetrics writes the text exposition.
func (s *Server) serveMetrics(w http.ResponseWriter) {
	var objects []metrics.ObjectCount
	seen := map[string]bool{}
	for _, g := range s.registry.Snapshot() {
		for _, v := range g.Versions {
			for _, res := range v.Resources {
				if res.IsVirtual() || seen[res.StorageKey()] {
					continue
				}
				seen[res.StorageKey()] = true
				cur, _ := s.store.Current(res.StorageKey())
				objects = append(objects, metrics.ObjectCount{Group: res.Group, Resource: res.Name, Count: cur.Len()})
			}
		}
	}
	w.Header().Set("Content-Type", metrics.ContentType)
	w.WriteHeader(http.StatusOK)
	_ = s.metrics.Write(w, objects)
}
