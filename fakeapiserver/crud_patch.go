package fakeapiserver

import (
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/patch"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/fakeapiserver/internal/strategicpatch"
	"github.com/kubecache/kubecache/meta"
)

// PATCH: JSON patch, merge patch and (for built-in kinds) strategic merge
// patch (internal/strategicpatch) apply to the current object and go
// through the same path as an update. The server retries against the
// latest version, so a patch conflicts only when it sets
// metadata.resourceVersion itself.

const (
	mediaJSONPatch      = "application/json-patch+json"
	mediaMergePatch     = "application/merge-patch+json"
	mediaStrategicPatch = "application/strategic-merge-patch+json"
	mediaApplyPatch     = "application/apply-patch+yaml"
)

func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request, info requestInfo, res *registry.Resource) {
	n, err := negotiate(r, false)
	if err != nil {
		writeError(w, r, err)
		return
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var apply func(target, p []byte) (jsonv.Value, error)
	switch mt {
	case mediaJSONPatch:
		apply = patch.JSON
	case mediaMergePatch:
		apply = patch.Merge
	case mediaApplyPatch:
		if r.URL.Query().Get("fieldManager") == "" {
			writeStatus(w, r, apistatus.Invalid("meta.k8s.io", "PatchOptions", "", []apistatus.FieldError{apistatus.FieldRequired("fieldManager", "is required for apply patch")}))
			return
		}
		s.handleApply(w, r, info, res, n)
		return
	case mediaStrategicPatch:
		schema, ok := strategicpatch.ForKind(openapi.Builtin(), openapi.GVK{Group: res.Group, Version: info.version, Kind: res.Kind})
		if !ok || res.Custom {
			// Custom resources have no Go type: the real server refuses.
			writeStatus(w, r, apistatus.UnsupportedMediaType(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s", mediaJSONPatch, mediaMergePatch, mediaApplyPatch)))
			return
		}
		apply = func(target, p []byte) (jsonv.Value, error) {
			t, err := jsonv.Parse(target)
			if err != nil {
				return jsonv.Value{}, err
			}
			pv, err := jsonv.Parse(p)
			if err != nil {
				return jsonv.Value{}, &patch.DecodeError{Msg: "invalid JSON document: " + err.Error()}
			}
			return strategicpatch.ApplyValue(t.Value, pv.Value, schema)
		}
	default:
		st := apistatus.UnsupportedMediaType("415: Unsupported Media Type")
		st.Details = &meta.StatusDetails{}
		writeStatus(w, r, st)
		return
	}
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
	ns := nsFor(res, info)
	table := res.StorageKey()
	apiVersion := gv(res.Group, info.version)
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(table, storage.ObjectKey(ns, info.name))
		if cur == nil {
			writeStatus(w, r, apistatus.NotFound(res.GR(), info.name))
			return
		}
		patched, err := apply(cur.AppendObject(nil, apiVersion), body)
		if err != nil {
			writeStatus(w, r, patchError(err))
			return
		}
		in, err := s.decodePatched(res, info.version, jsonv.Marshal(patched), wo.validation)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if in.meta.Name != info.name {
			writeStatus(w, r, apistatus.Invalid(res.Group, res.Kind, info.name, []apistatus.FieldError{apistatus.FieldInvalid("metadata.name", in.meta.Name, "field is immutable")}))
			return
		}
		if res.Namespaced && in.meta.Namespace != ns {
			writeStatus(w, r, apistatus.BadRequest("the namespace of the provided object does not match the namespace sent on the request"))
			return
		}
		conditional := in.meta.ResourceVersion != cur.Meta.ResourceVersion
		if conditional && in.meta.ResourceVersion != "" {
			writeStatus(w, r, apistatus.Conflict(res.GR(), info.name, apistatus.MsgModified))
			return
		}
		in.meta.ResourceVersion = cur.Meta.ResourceVersion
		if s.writeUpdated(w, r, n, res, cur, in, info.subresource, wo.manager, apiVersion, nil, wo.dryRun) {
			return
		}
	}
	writeStatus(w, r, apistatus.Conflict(res.GR(), info.name, apistatus.MsgModified))
}

// patchError maps a patch failure to the real server's answer: a bad patch
// document is 400, one that does not apply is 422, too many operations 413.
func patchError(err error) *meta.Status {
	var de *patch.DecodeError
	var tm *patch.TooManyOperationsError
	var se *strategicpatch.Error
	switch {
	case errors.As(err, &se):
		switch se.Code {
		case 400:
			return apistatus.BadRequest(se.Msg)
		case 422:
			return apistatus.GenericInvalid()
		default:
			return apistatus.New(500, meta.ReasonInternalError, se.Msg)
		}
	case errors.As(err, &de):
		return apistatus.BadRequest(de.Error())
	case errors.As(err, &tm):
		return apistatus.New(413, meta.ReasonRequestEntityTooLarge, tm.Error())
	default:
		// The real server says no more than this (details {}).
		return apistatus.GenericInvalid()
	}
}

// writeUpdated ends a read-modify-write (patch, apply): it prepares the
// update of cur to in (managed, when not nil, is the managedFields to
// store), commits it and writes the answer. It returns false, having
// written nothing, when cur changed underneath and the caller should read
// it again.
func (s *Server) writeUpdated(w http.ResponseWriter, r *http.Request, n negotiation, res *registry.Resource, cur *storage.Object, in *incoming, subresource, manager, apiVersion string, managed meta.ManagedFields, dryRun bool) bool {
	next, err := s.prepareUpdateManaged(r.Context(), res, cur, in.meta, in.rest, subresource, manager, apiVersion, managed)
	if err != nil {
		writeError(w, r, err)
		return true
	}
	obj, err := s.finishUpdate(r.Context(), res, cur, next, dryRun)
	if errors.Is(err, storage.ErrChanged) {
		return false
	}
	if err != nil {
		writeError(w, r, err)
		return true
	}
	addWarnings(w, in.warnings)
	writeBody(w, n, http.StatusOK, encodeObject(obj, n.format, apiVersion))
	return true
}
