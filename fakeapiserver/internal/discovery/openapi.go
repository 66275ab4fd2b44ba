package discovery

import (
	"net/http"
	"strings"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// OpenAPI v3: per group-version, the documents internal/openapi renders
// from the real server's schemas (operations with
// x-kubernetes-group-version-kind and fieldValidation, which tell kubectl
// the server validates fields itself; the kinds' schemas with their patch
// merge keys, which kubectl's client-side apply and explain read). They are
// rendered on first use and again only after the set of resources changes.

// openAPICache holds the rendered documents for one registry generation.
type openAPICache struct {
	// mu guards every field below.
	mu    sync.Mutex
	gen   uint64
	ok    bool
	docs  map[string][]byte
	index []byte
}

func (s *Server) openAPIDocs() (map[string][]byte, []byte) {
	gen := s.registry.Generation()
	c := &s.openapi
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && c.gen == gen {
		return c.docs, c.index
	}
	docs := map[string][]byte{}
	for _, g := range s.registry.Snapshot() {
		for _, v := range g.Versions {
			var rs []openapi.Resource
			for _, r := range v.Resources {
				rs = append(rs, openapi.Resource{Group: r.Group, Version: r.Version, Plural: r.Name, Kind: r.Kind, Namespaced: r.Namespaced, Verbs: r.Verbs})
			}
			docs[openapi.Path(g.Name, v.Version)] = openapi.GroupVersion(g.Name, v.Version, rs, openapi.Builtin())
		}
	}
	c.gen, c.ok, c.docs, c.index = gen, true, docs, openapi.Index(docs)
	return c.docs, c.index
}

func (s *Server) serveOpenAPIIndex(w http.ResponseWriter, r *http.Request) {
	_, index := s.openAPIDocs()
	request.WriteBody(w, request.Negotiation{Pretty: request.IsPretty(r), ContentType: "text/plain; charset=utf-8"}, http.StatusOK, index)
}

func (s *Server) serveOpenAPIGroupVersion(w http.ResponseWriter, r *http.Request, gvPath string) {
	docs, _ := s.openAPIDocs()
	doc, ok := docs[strings.TrimSuffix(gvPath, "/")]
	if !ok {
		request.WriteStatus(w, r, apistatus.PathNotFound())
		return
	}
	request.WriteBody(w, request.Negotiation{Pretty: request.IsPretty(r)}, http.StatusOK, doc)
}
