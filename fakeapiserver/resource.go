package fakeapiserver

import (
	"net/http"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// serveResource dispatches a request on a resource URL by verb.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, info request.Info) {
	r = r.WithContext(withWarnings(r.Context(), w.Header()))
	if !s.registry.HasGroupVersion(info.Group, info.Version) {
		// The real server has no handler at all there: a plain text 404.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("404 page not found\n"))
		return
	}
	res := s.registry.Lookup(info.Group, info.Version, info.Resource)
	if res == nil || (!res.Namespaced && info.Namespace != "") {
		request.WriteStatus(w, r, apistatus.PathNotFound())
		return
	}
	if res.StorageKey() == "/endpoints" {
		// The real server warns on every request for the deprecated
		// v1 Endpoints.
		w.Header().Add("Warning", `299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"`)
	}
	if res.DeprecationWarning != "" {
		w.Header().Add("Warning", "299 - "+strconv.Quote(res.DeprecationWarning))
	}
	if s.serveConnect(w, r, info, res) {
		return
	}
	if info.Subresource == "eviction" && res.StorageKey() == "/pods" {
		s.serveEviction(w, r, info, res)
		return
	}
	if info.Subresource == "binding" && res.StorageKey() == "/pods" && info.Verb == "create" {
		if b := s.registry.Lookup("", "v1", "bindings"); b != nil {
			info.Name = ""
			s.handleVirtualCreate(w, r, info, b)
			return
		}
	}
	scale := info.Subresource == "scale" && res.HasSubresource("scale")
	finalize := info.Subresource == "finalize" && res.StorageKey() == "/namespaces" && info.Verb == "update"
	approval := info.Subresource == "approval" && res.StorageKey() == "certificates.k8s.io/certificatesigningrequests"
	if info.Subresource != "" {
		if (info.Subresource != "status" || !res.HasStatus()) && !scale && !finalize && !approval {
			request.WriteStatus(w, r, apistatus.PathNotFound())
			return
		}
		switch info.Verb {
		case "get", "update", "patch":
		default:
			request.WriteStatus(w, r, apistatus.MethodNotAllowed())
			return
		}
	}
	if info.Verb == "" || !res.HasVerb(info.Verb) || ((info.Verb == "update" || info.Verb == "patch") && info.Name == "") {
		request.WriteStatus(w, r, apistatus.MethodNotAllowed())
		return
	}
	if err := s.auth.Authorize(r, info, res); err != nil {
		request.WriteError(w, r, err)
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
	switch info.Verb {
	case "get":
		s.handleGet(w, r, info, res)
	case "list":
		s.handleList(w, r, info, res)
	case "watch":
		s.handleWatch(w, r, info, res)
	case "create":
		if res.IsVirtual() {
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
		request.WriteStatus(w, r, apistatus.MethodNotAllowed())
	}
}

// handleGet serves GET on one object (and its /status).
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	n, err := request.NegotiateRead(r, false)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	if err := n.CheckTarget(res, false); err != nil {
		request.WriteError(w, r, err)
		return
	}
	if rv := r.URL.Query().Get("resourceVersion"); rv != "" {
		n, err := request.ParseRV(rv)
		if err != nil {
			request.WriteStatus(w, r, apistatus.BadRequest("invalid resource version: resourceVersion: Invalid value: \""+rv+"\": "+err.Error()))
			return
		}
		if err := s.waitForRV(r.Context(), n); err != nil {
			request.WriteError(w, r, err)
			return
		}
	}
	obj := s.store.Get(res.StorageKey(), storage.ObjectKey(nsFor(res, info), info.Name))
	if obj == nil {
		request.WriteStatus(w, r, apistatus.NotFound(res.GR(), info.Name))
		return
	}
	if n.Format == request.FormatTable {
		body, err := s.newTableRenderer(res, info.Version, n).render([]*storage.Object{obj}, rvMeta(strconv.FormatInt(obj.RV, 10)), s.clock.Now(), false)
		if err != nil {
			request.WriteError(w, r, err)
			return
		}
		request.WriteBody(w, n, http.StatusOK, body)
		return
	}
	request.WriteObject(w, n, http.StatusOK, obj, request.GV(res.Group, info.Version))
}

// nsFor is the namespace part of an object key for a request.
func nsFor(res *registry.Resource, info request.Info) string {
	if !res.Namespaced {
		return ""
	}
	return info.Namespace
}
