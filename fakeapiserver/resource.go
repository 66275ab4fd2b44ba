package fakeapiserver

import (
	"net/http"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// serveResource dispatches a request on a resource URL by verb.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, info requestInfo) {
	if !s.registry.HasGroupVersion(info.group, info.version) {
		// The real server has no handler at all there: a plain text 404.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("404 page not found\n"))
		return
	}
	res := s.registry.Lookup(info.group, info.version, info.resource)
	if res == nil || (!res.Namespaced && info.namespace != "") {
		writeStatus(w, r, apistatus.PathNotFound())
		return
	}
	if info.subresource == "binding" && res.StorageKey() == "/pods" && info.verb == "create" {
		if b := s.registry.Lookup("", "v1", "bindings"); b != nil {
			info.name = ""
			s.handleVirtualCreate(w, r, info, b)
			return
		}
	}
	scale := info.subresource == "scale" && res.HasSubresource("scale")
	finalize := info.subresource == "finalize" && res.StorageKey() == "/namespaces" && info.verb == "update"
	if info.subresource != "" {
		if (info.subresource != "status" || !res.HasStatus()) && !scale && !finalize {
			writeStatus(w, r, apistatus.PathNotFound())
			return
		}
		switch info.verb {
		case "get", "update", "patch":
		default:
			writeStatus(w, r, apistatus.MethodNotAllowed())
			return
		}
	}
	if info.verb == "" || !res.HasVerb(info.verb) || ((info.verb == "update" || info.verb == "patch") && info.name == "") {
		writeStatus(w, r, apistatus.MethodNotAllowed())
		return
	}
	if err := s.authorize(r, info, res); err != nil {
		writeError(w, r, err)
		return
	}
	switch {
	case scale:
		s.serveScale(w, r, info, res)
		return
	case finalize:
		s.handleNamespaceFinalize(w, r, info, res)
		return
	}
	switch info.verb {
	case "get":
		s.handleGet(w, r, info, res)
	case "list":
		s.handleList(w, r, info, res)
	case "watch":
		s.handleWatch(w, r, info, res)
	case "create":
		if isVirtual(res) {
			s.handleVirtualCreate(w, r, info, res)
			return
		}
		s.handleCreate(w, r, info, res)
	case "update":
		s.handleUpdate(w, r, info, res)
	case "patch":
		s.handlePatch(w, r, info, res)
	case "delete":
		s.handleDelete(w, r, info, res)
	case "deletecollection":
		s.handleDeleteCollection(w, r, info, res)
	default:
		writeStatus(w, r, apistatus.MethodNotAllowed())
	}
}

// handleGet serves GET on one object (and its /status).
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, info requestInfo, res *registry.Resource) {
	n, err := negotiateRead(r, false)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if err := n.checkTarget(res, false); err != nil {
		writeError(w, r, err)
		return
	}
	if rv := r.URL.Query().Get("resourceVersion"); rv != "" {
		n, err := parseRV(rv)
		if err != nil {
			writeStatus(w, r, apistatus.BadRequest("invalid resource version: resourceVersion: Invalid value: \""+rv+"\": "+err.Error()))
			return
		}
		if err := s.waitForRV(r.Context(), n); err != nil {
			writeError(w, r, err)
			return
		}
	}
	obj := s.store.Get(res.StorageKey(), storage.ObjectKey(nsFor(res, info), info.name))
	if obj == nil {
		writeStatus(w, r, apistatus.NotFound(res.GR(), info.name))
		return
	}
	if n.format == formatTable {
		body, err := s.newTableRenderer(res, info.version, n).render([]*storage.Object{obj}, rvMeta(strconv.FormatInt(obj.RV, 10)), s.clock.Now(), false)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeBody(w, n, http.StatusOK, body)
		return
	}
	writeBody(w, n, http.StatusOK, encodeObject(obj, n.format, gv(res.Group, info.version)))
}

// nsFor is the namespace part of an object key for a request.
func nsFor(res *registry.Resource, info requestInfo) string {
	if !res.Namespaced {
		return ""
	}
	return info.namespace
}

// restOf returns an object's top-level members other than kind,
// apiVersion and metadata.
func restOf(o *storage.Object) ([]jsonv.Member, error) {
	doc, err := o.Document()
	if err != nil {
		return nil, err
	}
	out := make([]jsonv.Member, 0, len(doc.Obj))
	for _, m := range doc.Obj {
		switch m.Key {
		case "kind", "apiVersion", "metadata":
		default:
			out = append(out, m)
		}
	}
	return out, nil
}
