package fakeapiserver

import (
	"errors"
	"net/http"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apply"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// Server-side apply (PATCH application/apply-patch+yaml): internal/apply
// merges the manager's configuration into the live object and keeps
// metadata.managedFields; the result is created (201) or stored like any
// update. Field-ownership conflicts are 409 with FieldManagerConflict
// causes; force=true takes ownership.

func (s *Server) handleApply(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource, n request.Negotiation) {
	body, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
	if err == nil {
		err = request.CheckYAMLExpansion(body, s.opts.MaxRequestBodyBytes)
	}
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	wo, err := parseWriteOptions(r)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	apiVersion := request.GV(res.Group, info.Version)
	typ, ok := apply.ForKind(openapi.Builtin(), openapi.GVK{Group: res.Group, Version: info.Version, Kind: res.Kind})
	if !ok || res.Custom {
		typ = apply.Type{} // objects are maps, lists atomic
	}
	req := apply.Request{
		Manager: q.Get("fieldManager"), APIVersion: apiVersion, Kind: res.Kind,
		Subresource: info.Subresource, StatusSubresource: res.HasStatus(), SpecReset: specReset(res),
		Force: q.Get("force") == "true", Now: s.clock.Now(),
		Convert: managedConverter(res, apiVersion),
	}
	ns := nsFor(res, info)
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(res.StorageKey(), storage.ObjectKey(ns, info.Name))
		live := jsonv.Value{Kind: jsonv.Null}
		if cur != nil {
			// The configuration merges into the object as served at the
			// request's version.
			doc, err := managedDocument(cur, apiVersion)
			if err != nil {
				request.WriteError(w, r, err)
				return
			}
			live = doc
		}
		result, err := apply.Apply(live, body, typ, req)
		if err != nil {
			request.WriteStatus(w, r, applyError(err))
			return
		}
		managed, err := meta.ParseManagedFields(result.ManagedFields)
		if err != nil {
			request.WriteStatus(w, r, apistatus.Internal(err))
			return
		}
		if cur != nil && !result.Changed {
			// The real server runs the unchanged object through its
			// update, whose strategy may warn (a Service's externalIPs).
			if info.Subresource == "" {
				addWarnings(w, s.builtinUpdateWarnings(res, apiVersion, cur, nil, nil))
			}
			request.WriteBody(w, n, http.StatusOK, request.EncodeObject(cur, n.Format, apiVersion))
			return
		}
		in, err := request.DecodeObject(s.registry, res, info.Version, jsonv.Marshal(result.Object), wo.validation)
		if err != nil {
			request.WriteError(w, r, err)
			return
		}
		if in.Meta.Name != info.Name {
			request.WriteStatus(w, r, apistatus.BadRequest("the name of the object ("+in.Meta.Name+") does not match the name on the URL ("+info.Name+")"))
			return
		}
		if cur == nil {
			if info.Subresource != "" {
				request.WriteStatus(w, r, apistatus.NotFound(res.GR(), info.Name))
				return
			}
			in.Meta.ResourceVersion = ""
			wo.managed = managed
			obj, warnings, err := s.createDecoded(r.Context(), res, ns, in, wo)
			var st *meta.Status
			if errors.As(err, &st) && st.IsAlreadyExists() {
				continue
			}
			if err != nil {
				request.WriteError(w, r, err)
				return
			}
			addWarnings(w, warnings)
			request.WriteBody(w, n, http.StatusCreated, request.EncodeObject(obj, n.Format, apiVersion))
			return
		}
		if s.writeUpdated(w, r, n, res, cur, in, info.Subresource, req.Manager, apiVersion, managed, wo.dryRun) {
			return
		}
	}
	request.WriteStatus(w, r, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified))
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
