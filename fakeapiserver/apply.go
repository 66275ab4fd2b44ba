package fakeapiserver

import (
	"errors"
	"net/http"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apply"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// Server-side apply (PATCH application/apply-patch+yaml): internal/apply
// merges the manager's configuration into the live object and keeps
// metadata.managedFields; the result is created (201) or stored like any
// update. Field-ownership conflicts are 409 with FieldManagerConflict
// causes; force=true takes ownership.

func (s *Server) handleApply(w http.ResponseWriter, r *http.Request, info requestInfo, res *registry.Resource, n negotiation) {
	body, err := readBody(r, s.opts.MaxRequestBodyBytes)
	if err != nil {
		writeError(w, r, err)
		return
	}
	wo, err := parseWriteOptions(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	apiVersion := gv(res.Group, info.version)
	typ, ok := apply.ForKind(openapi.Builtin(), openapi.GVK{Group: res.Group, Version: info.version, Kind: res.Kind})
	if !ok || res.Custom {
		typ = apply.Type{} // objects are maps, lists atomic
	}
	req := apply.Request{
		Manager: q.Get("fieldManager"), APIVersion: apiVersion, Kind: res.Kind,
		Subresource: info.subresource, StatusSubresource: res.HasStatus(),
		Force: q.Get("force") == "true", Now: s.clock.Now(),
	}
	ns := nsFor(res, info)
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(res.StorageKey(), storage.ObjectKey(ns, info.name))
		live := jsonv.Value{Kind: jsonv.Null}
		if cur != nil {
			doc, err := cur.Document()
			if err != nil {
				writeError(w, r, err)
				return
			}
			live = doc
		}
		result, err := apply.Apply(live, body, typ, req)
		if err != nil {
			writeStatus(w, r, applyError(err))
			return
		}
		managed, err := meta.ParseManagedFields(result.ManagedFields)
		if err != nil {
			writeStatus(w, r, apistatus.Internal(err))
			return
		}
		if cur != nil && !result.Changed {
			writeBody(w, n, http.StatusOK, encodeObject(cur, n.format, apiVersion))
			return
		}
		in, err := s.decodeObject(res, info.version, jsonv.Marshal(result.Object), wo.validation)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if in.meta.Name != info.name {
			writeStatus(w, r, apistatus.BadRequest("the name of the object ("+in.meta.Name+") does not match the name on the URL ("+info.name+")"))
			return
		}
		if cur == nil {
			if info.subresource != "" {
				writeStatus(w, r, apistatus.NotFound(res.GR(), info.name))
				return
			}
			in.meta.ResourceVersion = ""
			wo.managed = managed
			obj, warnings, err := s.createDecoded(r.Context(), res, ns, in, wo)
			var st *meta.Status
			if errors.As(err, &st) && st.IsAlreadyExists() {
				continue
			}
			if err != nil {
				writeError(w, r, err)
				return
			}
			addWarnings(w, warnings)
			writeBody(w, n, http.StatusCreated, encodeObject(obj, n.format, apiVersion))
			return
		}
		in.meta.ResourceVersion = cur.Meta.ResourceVersion
		if s.writeUpdated(w, r, n, res, cur, in, info.subresource, req.Manager, apiVersion, managed, wo.dryRun) {
			return
		}
	}
	writeStatus(w, r, apistatus.Conflict(res.GR(), info.name, apistatus.MsgModified))
}

// applyError maps internal/apply's errors to Status bodies.
func applyError(err error) *meta.Status {
	var ce *apply.ConflictError
	var ae *apply.Error
	switch {
	case errors.As(err, &ce):
		return ce.Status()
	case errors.As(err, &ae):
		switch ae.Code {
		case 400:
			return apistatus.BadRequest(ae.Msg)
		case 422:
			st := apistatus.New(422, meta.ReasonInvalid, ae.Msg)
			return st
		default:
			// A configuration that does not fit the kind's schema (a
			// wrong type, an unknown field) is a real server's 500; the
			// fake server never answers 500 to what a client sent, so it
			// is a 400 with the same message (docs/fidelity.md).
			return apistatus.BadRequest(ae.Msg)
		}
	}
	return apistatus.Internal(err)
}
