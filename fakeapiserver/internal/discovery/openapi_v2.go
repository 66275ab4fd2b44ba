package discovery

import (
	"bytes"
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// OpenAPI v2: /openapi/v2, the Swagger 2.0 document internal/openapi
// derives from the v3 documents, in JSON or in the gnostic protobuf
// kubectl and client-go ask for, each rendered on first use per registry
// generation. kubectl reads it only when v3 lacks a group version; other
// tools (older clients, schema generators) read it first.

// The media types of /openapi/v2's protobuf answer: the one it is served
// as, and the older spelling clients still ask for.
const (
	MediaOpenAPIV2Protobuf    = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaOpenAPIV2ProtobufOld = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// openAPIV2Cache holds the v2 document of one registry generation.
type openAPIV2Cache struct {
	// mu guards every field below.
	mu  sync.Mutex
	gen uint64
	ok  bool
	// json is the document, hash its ETag, modified when it was
	// rendered (Last-Modified).
	json     []byte
	hash     string
	modified time.Time
	// proto is its protobuf form once asked for (protoErr if it cannot
	// be encoded).
	proto    []byte
	protoErr error
}

// openAPIV2 returns the v2 document of the current registry generation,
// in protobuf when asked, with its ETag and time of rendering.
func (s *Server) openAPIV2(protobuf bool) (body []byte, hash string, modified time.Time, err error) {
	docs, _ := s.openAPIDocs()
	c := &s.openapiV2
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen := s.registry.Generation(); !c.ok || c.gen != gen {
		doc, err := openapi.Swagger(docs)
		if err != nil {
			return nil, "", time.Time{}, err
		}
		if !c.ok || !bytes.Equal(doc, c.json) {
			c.json, c.hash, c.modified = doc, openapi.Hash(doc), time.Now()
			c.proto, c.protoErr = nil, nil
		}
		c.gen, c.ok = gen, true
	}
	if !protobuf {
		return c.json, c.hash, c.modified, nil
	}
	if c.proto == nil && c.protoErr == nil {
		c.proto, c.protoErr = openapi.SwaggerProto(c.json)
	}
	return c.proto, c.hash, c.modified, c.protoErr
}

// serveOpenAPIV2 answers GET /openapi/v2 as the real server's OpenAPI
// handler does: the first Accept entry (by q, concrete before wildcard)
// that names JSON or the protobuf (either spelling) picks the form, any
// other Accept is 406 with an empty body; both forms carry the JSON
// document's hash as their ETag (Vary: Accept), so a matching
// If-None-Match is 304, and Last-Modified and ranges as net/http serves a
// file's content. A document that cannot be encoded is 503.
func (s *Server) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Accept")
	contentType, ok := openAPIV2Media(r.Header.Get("Accept"))
	if !ok {
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	body, hash, modified, err := s.openAPIV2(contentType == MediaOpenAPIV2Protobuf)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Etag", strconv.Quote(hash))
	http.ServeContent(w, r, "", modified, bytes.NewReader(body))
}

// openAPIV2Media is the Content-Type of /openapi/v2's answer to an Accept
// header ("" means anything), false when it names neither form.
func openAPIV2Media(accept string) (string, bool) {
	if strings.TrimSpace(accept) == "" {
		accept = "*/*"
	}
	type entry struct {
		typ, sub string
		q        float64
	}
	var entries []entry
	for _, part := range strings.Split(accept, ",") {
		// Split by hand: mime.ParseMediaType refuses the '@' of the older
		// protobuf spelling.
		mt, params, _ := strings.Cut(part, ";")
		typ, sub, ok := strings.Cut(strings.TrimSpace(mt), "/")
		if !ok || typ == "" || sub == "" {
			continue
		}
		e := entry{typ: typ, sub: sub, q: 1}
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.TrimSpace(k) == "q" {
				q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					q = 0
				}
				e.q = q
			}
		}
		// An entry of q=0 still counts, last, as the real server's
		// negotiation keeps it.
		entries = append(entries, e)
	}
	// specific counts the concrete halves of a media range.
	specific := func(e entry) int {
		n := 0
		if e.typ != "*" {
			n++
		}
		if e.sub != "*" {
			n++
		}
		return n
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		if a.q != b.q {
			return cmp.Compare(b.q, a.q)
		}
		return cmp.Compare(specific(b), specific(a))
	})
	offers := []struct{ sub, contentType string }{
		{"json", "application/json"},
		{strings.TrimPrefix(mediaOpenAPIV2ProtobufOld, "application/"), MediaOpenAPIV2Protobuf},
		{strings.TrimPrefix(MediaOpenAPIV2Protobuf, "application/"), MediaOpenAPIV2Protobuf},
	}
	for _, e := range entries {
		for _, o := range offers {
			if (e.typ == "application" || e.typ == "*") && (e.sub == o.sub || e.sub == "*") {
				return o.contentType, true
			}
		}
	}
	return "", false
}
