package discovery

import (
	"bytes"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

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
	// modified is when the documents were last rendered differently
	// (Last-Modified).
	modified time.Time
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
			custom := false
			for _, r := range v.Resources {
				or := openapi.Resource{Group: r.Group, Version: r.Version, Plural: r.Name, Kind: r.Kind, Namespaced: r.Namespaced, Verbs: r.Verbs}
				if r.Custom {
					custom = true
					or.Custom, or.Schema = true, r.OpenAPISchema
					for _, sub := range r.Subresources {
						or.Subresources = append(or.Subresources, sub.Name)
					}
				}
				rs = append(rs, or)
			}
			render := openapi.GroupVersion
			if custom {
				render = openapi.CustomGroupVersion
			}
			docs[openapi.Path(g.Name, v.Version)] = render(g.Name, v.Version, rs, openapi.Builtin())
		}
	}
	if !c.ok || !maps.EqualFunc(c.docs, docs, bytes.Equal) {
		c.modified = time.Now()
	}
	c.gen, c.ok, c.docs, c.index = gen, true, docs, openapi.Index(docs)
	return c.docs, c.index
}

func (s *Server) serveOpenAPIIndex(w http.ResponseWriter, r *http.Request) {
	_, index := s.openAPIDocs()
	request.WriteBody(w, request.Negotiation{Pretty: request.IsPretty(r), ContentType: "text/plain; charset=utf-8"}, http.StatusOK, index)
}

// serveOpenAPIGroupVersion answers /openapi/v3/<group-version> with the
// real server's caching headers: the document's hash as its ETag (a
// matching If-None-Match is 304), and under ?hash= of the current
// document an immutable answer cached for a year; a stale hash is a 301
// to the current URL.
func (s *Server) serveOpenAPIGroupVersion(w http.ResponseWriter, r *http.Request, gvPath string) {
	docs, _ := s.openAPIDocs()
	gvPath = strings.TrimSuffix(gvPath, "/")
	doc, ok := docs[gvPath]
	if !ok {
		request.WriteStatus(w, r, apistatus.PathNotFound())
		return
	}
	hash := openapi.Hash(doc)
	s.openapi.mu.Lock()
	modified := s.openapi.modified
	s.openapi.mu.Unlock()
	h := w.Header()
	h.Set("Etag", `"`+hash+`"`)
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "no-cache, private")
	if want := r.URL.Query().Get("hash"); want != "" && want != hash {
		h.Set("Location", "/openapi/v3/"+gvPath+"?hash="+hash)
		h.Set("Content-Type", request.MediaJSON)
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusMovedPermanently)
		return
	} else if want != "" {
		h.Set("Cache-Control", "public, immutable")
		h.Set("Expires", modified.AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, `"`+hash+`"`) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if request.IsPretty(r) {
		request.WriteBody(w, request.Negotiation{Pretty: true}, http.StatusOK, doc)
		return
	}
	h.Set("Content-Type", request.MediaJSON)
	h.Set("Content-Length", strconv.Itoa(len(doc)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc)
}
