package discovery

import (
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// OpenAPI v2: /openapi/v2, the Swagger 2.0 document internal/openapi
// derives from the v3 documents, rendered on first use per registry
// generation. kubectl reads it only when v3 is missing; other tools
// (older clients, schema generators) read it first.

// openAPIV2 returns the v2 document of the current registry generation.
func (s *Server) openAPIV2() ([]byte, error) {
	docs, _ := s.openAPIDocs()
	c := &s.openapiV2
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := s.registry.Generation()
	if c.doc != nil && c.gen == gen {
		return c.doc, nil
	}
	doc, err := openapi.Swagger(docs)
	if err != nil {
		return nil, err
	}
	c.gen, c.doc = gen, doc
	return doc, nil
}

// openAPIV2Cache holds the v2 document for one registry generation.
type openAPIV2Cache struct {
	// mu guards gen and doc.
	mu  sync.Mutex
	gen uint64
	doc []byte
}

// serveOpenAPIV2 answers GET /openapi/v2 in JSON. The real server also
// speaks protobuf here; a client that accepts only that gets 406 with an
// empty body, as the real server answers any Accept it cannot serve.
func (s *Server) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	if !acceptsJSON(r.Header.Get("Accept")) {
		w.Header().Set("Vary", "Accept")
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	doc, err := s.openAPIV2()
	if err != nil {
		request.WriteStatus(w, r, apistatus.Internal(err))
		return
	}
	w.Header().Set("Vary", "Accept")
	request.WriteBody(w, request.Negotiation{Pretty: request.IsPretty(r)}, http.StatusOK, doc)
}

// acceptsJSON reports whether an Accept header allows application/json
// (an empty header allows anything).
func acceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if mt == request.MediaJSON || mt == "*/*" || mt == "application/*" {
			return true
		}
	}
	return false
}
