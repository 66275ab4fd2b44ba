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
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
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

func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	n, err := request.Negotiate(r, false)
	if err != nil {
		request.WriteError(w, r, err)
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
			request.WriteStatus(w, r, apistatus.Invalid("meta.k8s.io", "PatchOptions", "", []apistatus.FieldError{apistatus.FieldRequired("fieldManager", "is required for apply patch")}))
			return
		}
		s.handleApply(w, r, info, res, n)
		return
	case mediaStrategicPatch:
		schema, ok := strategicpatch.ForKind(openapi.Builtin(), openapi.GVK{Group: res.Group, Version: info.Version, Kind: res.Kind})
		if !ok || res.Custom {
			// Custom resources have no Go type: the real server refuses.
			request.WriteStatus(w, r, apistatus.UnsupportedMediaType(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s", mediaJSONPatch, mediaMergePatch, mediaApplyPatch)))
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
		request.WriteStatus(w, r, st)
		return
	}
	body, wo, err := s.readPatch(r)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	ns := nsFor(res, info)
	table := res.StorageKey()
	apiVersion := request.GV(res.Group, info.Version)
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(table, storage.ObjectKey(ns, info.Name))
		if cur == nil {
			request.WriteStatus(w, r, apistatus.NotFound(res.GR(), info.Name))
			return
		}
		patched, err := apply(request.AtVersion(cur, apiVersion).AppendObject(nil, apiVersion), body)
		if err != nil {
			request.WriteStatus(w, r, patchError(err))
			return
		}
		in, err := request.DecodePatched(s.registry, res, info.Version, jsonv.Marshal(patched), wo.validation)
		if err != nil {
			request.WriteError(w, r, err)
			return
		}
		if in.Meta.Name != info.Name {
			request.WriteStatus(w, r, apistatus.Invalid(res.Group, res.Kind, info.Name, []apistatus.FieldError{apistatus.FieldInvalid("metadata.name", in.Meta.Name, "field is immutable")}))
			return
		}
		if res.Namespaced && in.Meta.Namespace != ns {
			request.WriteStatus(w, r, apistatus.BadRequest("the namespace of the provided object does not match the namespace sent on the request"))
			return
		}
		conditional := in.Meta.ResourceVersion != cur.Meta.ResourceVersion
		if conditional && in.Meta.ResourceVersion != "" {
			request.WriteStatus(w, r, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified))
			return
		}
		if s.writeUpdated(w, r, n, res, cur, in, info.Subresource, wo.manager, apiVersion, nil, wo.dryRun) {
			return
		}
	}
	request.WriteStatus(w, r, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified))
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

// readPatch reads the body of a patch (bounded) and the write options.
func (s *Server) readPatch(r *http.Request) ([]byte, writeOptions, error) {
	body, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
	if err != nil {
		return nil, writeOptions{}, err
	}
	wo, err := parseWriteOptions(r)
	return body, wo, err
}

// writeUpdated ends a read-modify-write (patch, apply): it prepares the
// update of cur to in, at cur's resourceVersion (managed, when not nil, is
// the managedFields to store), commits it and writes the answer. It returns false, having
// written nothing, when cur changed underneath and the caller should read
// it again.
func (s *Server) writeUpdated(w http.ResponseWriter, r *http.Request, n request.Negotiation, res *registry.Resource, cur *storage.Object, in *request.Incoming, subresource, manager, apiVersion string, managed meta.ManagedFields, dryRun bool) bool {
	in.Meta.ResourceVersion = cur.Meta.ResourceVersion
	next, err := s.prepareUpdateManaged(r.Context(), res, cur, in.Meta, in.Rest, subresource, manager, in.SentAPIVersion, managed, dryRun)
	if err != nil {
		request.WriteError(w, r, err)
		return true
	}
	if subresource == "" {
		in.Warnings = s.builtinUpdateWarnings(res, apiVersion, cur, next, in.Warnings)
	}
	obj, err := s.finishUpdate(r.Context(), res, cur, next, dryRun)
	if errors.Is(err, storage.ErrChanged) {
		return false
	}
	if err != nil {
		request.WriteError(w, r, err)
		return true
	}
	addWarnings(w, in.Warnings)
	request.WriteBody(w, n, http.StatusOK, request.EncodeObject(obj, n.Format, apiVersion))
	return true
}
