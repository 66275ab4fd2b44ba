package fakeapiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apply"
	"github.com/kubecache/kubecache/fakeapiserver/internal/builtin"
	"github.com/kubecache/kubecache/fakeapiserver/internal/controllers"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// readPut reads and decodes the body of a PUT on one object (an update,
// a namespace's finalize): the object must name the one in the URL.
func (s *Server) readPut(r *http.Request, info request.Info, res *registry.Resource) (request.Negotiation, *request.Incoming, writeOptions, error) {
	n, data, wo, err := s.readWrite(r, res.Kind, res.Custom)
	if err != nil {
		return n, nil, wo, err
	}
	in, err := request.DecodeObject(s.registry, res, info.Version, data, wo.validation)
	if err != nil {
		return n, nil, wo, err
	}
	switch in.Meta.Name {
	case info.Name:
		return n, in, wo, nil
	case "":
		return n, nil, wo, apistatus.BadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", info.Name))
	default:
		return n, nil, wo, apistatus.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", in.Meta.Name, info.Name))
	}
}

// handleUpdate serves PUT on an object or its /status.
func (s *Server) handleUpdate(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	n, in, wo, err := s.readPut(r, info, res)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	ns := nsFor(res, info)
	if res.Namespaced && in.Meta.Namespace != "" && in.Meta.Namespace != ns {
		request.WriteStatus(w, r, apistatus.BadRequest("the namespace of the provided object does not match the namespace sent on the request"))
		return
	}
	obj, created, err := s.update(r.Context(), res, ns, info.Subresource, in, wo)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	addWarnings(w, in.Warnings)
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	request.WriteBody(w, n, code, request.EncodeObject(obj, n.Format, request.GV(res.Group, info.Version)))
}

// update replaces an object (or its status) with a decoded body, creating
// it where the resource allows create-on-update.
func (s *Server) update(ctx context.Context, res *registry.Resource, ns, subresource string, in *request.Incoming, wo writeOptions) (*storage.Object, bool, error) {
	table := res.StorageKey()
	key := storage.ObjectKey(ns, in.Meta.Name)
	// decoded: the decoder's warnings, to which the write's own are added
	// once it is done.
	decoded := in.Warnings
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(table, key)
		if cur == nil {
			if subresource != "" || !res.CreateOnUpdate {
				return nil, false, apistatus.NotFound(res.GR(), in.Meta.Name)
			}
			// The resourceVersion of a PUT that creates is ignored.
			in.Meta.ResourceVersion = ""
			obj, warnings, err := s.createDecoded(ctx, res, ns, in, wo)
			var st *meta.Status
			if errors.As(err, &st) && st.IsAlreadyExists() {
				continue
			}
			in.Warnings = warnings
			return obj, err == nil, err
		}
		conditional := in.Meta.ResourceVersion != ""
		if !conditional && (res.RequireResourceVersion || res.Custom) {
			return nil, false, apistatus.Invalid(res.Group, res.Name, in.Meta.Name, []apistatus.FieldError{apistatus.FieldInvalidRaw("metadata.resourceVersion", "0", "must be specified for an update")})
		}
		if conditional && in.Meta.ResourceVersion != cur.Meta.ResourceVersion {
			return nil, false, apistatus.Conflict(res.GR(), in.Meta.Name, apistatus.MsgModified)
		}
		next, err := s.prepareUpdate(ctx, res, cur, in.Meta, in.Rest, subresource, wo.manager, in.SentAPIVersion, wo.dryRun)
		if err != nil {
			return nil, false, err
		}
		if subresource == "" {
			in.Warnings = s.builtinUpdateWarnings(res, in.APIVersion, cur, next, decoded)
		}
		if next == nil || wo.dryRun {
			if next == nil {
				return cur, false, nil
			}
			return next, false, nil
		}
		obj, err := s.commitUpdate(ctx, res, cur, next)
		if errors.Is(err, storage.ErrChanged) {
			if conditional {
				return nil, false, apistatus.Conflict(res.GR(), in.Meta.Name, apistatus.MsgModified)
			}
			continue
		}
		return obj, false, err
	}
	return nil, false, apistatus.Conflict(res.GR(), in.Meta.Name, apistatus.MsgModified)
}

// prepareUpdate computes the next version of cur from a new metadata and
// body (at cur's storage version), written by manager at apiVersion. It
// returns nil when nothing would change (a no-op update: no new
// resourceVersion, no event). The result's resourceVersion is cur's; the
// commit sets the new one.
func (s *Server) prepareUpdate(ctx context.Context, res *registry.Resource, cur *storage.Object, newMeta *meta.ObjectMeta, newRest []jsonv.Member, subresource, manager, apiVersion string, dryRun bool) (*storage.Object, error) {
	return s.prepareUpdateManaged(ctx, res, cur, newMeta, newRest, subresource, manager, apiVersion, nil, dryRun)
}

// prepareUpdateManaged is prepareUpdate with the managedFields to store
// given (server-side apply computes them) rather than recorded as an
// Update entry; nil records the entry. A dry run reserves no Service
// address or node port.
func (s *Server) prepareUpdateManaged(ctx context.Context, res *registry.Resource, cur *storage.Object, newMeta *meta.ObjectMeta, newRest []jsonv.Member, subresource, manager, apiVersion string, managed meta.ManagedFields, dryRun bool) (*storage.Object, error) {
	// managedFields are recorded at the version written; everything else
	// works at the storage version.
	written := apiVersion
	apiVersion = request.StoredAPIVersion(cur.Kind, written)
	oldRest, err := storage.RestOf(cur)
	if err != nil {
		return nil, err
	}
	old := cur.Meta
	m := storage.CloneMeta(newMeta)
	// sentManaged: the managedFields the client wrote (Update starts from
	// them when there are any).
	sentManaged := newMeta.ManagedFields
	var rest []jsonv.Member
	// decoded is a built-in object as decoded and defaulted, before the
	// registry's and admission's changes (a Service's carried addresses
	// and node ports): the real server records managedFields from it.
	var decoded []byte
	statusOnly := subresource == "status" || subresource == "approval"
	if statusOnly {
		// A status write changes .status only (an approval write, its
		// conditions only).
		managed := m.ManagedFields
		m = storage.CloneMeta(old)
		m.ManagedFields = managed
		rest = storage.ReplaceMember(oldRest, "status", storage.FindMember(newRest, "status"))
		if subresource == "status" {
			if rest, decoded, err = s.builtinStatus(res, apiVersion, m, rest, oldRest); err != nil {
				return nil, err
			}
		}
		if subresource == "approval" {
			newDoc, oldDoc := storage.DocumentOf(newRest), storage.DocumentOf(oldRest)
			doc, errs := builtin.PrepareApproval(&newDoc, &oldDoc, s.clock.Now())
			if len(errs) > 0 {
				return nil, apistatus.Invalid(res.Group, res.Kind, m.Name, errs)
			}
			rest = doc.Obj
		}
	} else if rest, decoded, err = s.prepareMainUpdate(ctx, res, cur, m, newRest, oldRest, subresource, manager, apiVersion, dryRun); err != nil {
		return nil, err
	}
	if errs := validation.CustomValues(res, apiVersion, m, rest, oldRest); len(errs) > 0 {
		return nil, apistatus.Invalid(res.Group, res.Kind, m.Name, errs)
	}
	if hook := s.ctrl.UpdateHook(res); hook != nil {
		if rest, err = hook(ctx, m, rest); err != nil {
			return nil, err
		}
	}
	if err := s.admitByPolicies(ctx, policyWrite{op: "UPDATE", res: res, apiVersion: apiVersion, subresource: subresource, name: m.Name, meta: m, rest: rest, old: cur,
		options: writeOptionsDoc("UpdateOptions", writeOptions{manager: manager, dryRun: dryRun}), dryRun: dryRun}); err != nil {
		return nil, err
	}
	m.ResourceVersion = old.ResourceVersion
	m.ManagedFields = old.ManagedFields
	if managed != nil {
		m.ManagedFields = managed
	}
	doc := storage.DocumentOf(rest)
	fields := res.SelectableFields(&doc)
	restJSON := storage.EncodeRest(rest)
	next, err := storage.Assemble(cur.Kind, apiVersion, m, restJSON, fields)
	if err != nil {
		return nil, err
	}
	// A write that changes nothing is not stored, unless it clears the
	// managedFields the object holds or records fields its entries do
	// not hold yet (a status write whose fields the strategy drops).
	reset := subresource == "" && managedReset(sentManaged) && len(cur.Meta.ManagedFields) > 0
	same := storage.SameContent(cur, next) && !reset
	if same && managed != nil {
		return nil, nil
	}
	if managed != nil {
		return next, nil
	}
	live, err := managedDocument(cur, written)
	if err != nil {
		return nil, err
	}
	from := next
	if (len(sentManaged) > 0 && !statusOnly) || decoded != nil {
		fromJSON := restJSON
		if decoded != nil {
			fromJSON = decoded
		}
		if len(sentManaged) > 0 && !statusOnly {
			m.ManagedFields = sentManaged
		}
		if from, err = storage.Assemble(cur.Kind, apiVersion, m, fromJSON, fields); err != nil {
			return nil, err
		}
	}
	writtenDoc, err := managedDocument(from, written)
	if err != nil {
		return nil, err
	}
	if m.ManagedFields, err = meta.ParseManagedFields(apply.Update(live, writtenDoc, updateType(res, written), apply.Request{
		Manager: manager, APIVersion: written, Subresource: subresource,
		StatusSubresource: res.HasStatus(), SpecReset: specReset(res), Reset: managedReset(sentManaged),
		Now: s.clock.Now(), Convert: managedConverter(res, written)})); err != nil {
		return nil, apistatus.Internal(err)
	}
	if same && sameManagedFields(old.ManagedFields, m.ManagedFields) {
		return nil, nil
	}
	return storage.Assemble(cur.Kind, apiVersion, m, restJSON, fields)
}

// sameManagedFields reports whether two managedFields lists hold the same
// entries but for their times: the real field manager keeps the old times
// of a write that changes nothing else, so that write is not stored.
func sameManagedFields(a, b []meta.ManagedFieldsEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Time, y.Time = meta.Time{}, meta.Time{}
		jx, errX := json.Marshal(x)
		jy, errY := json.Marshal(y)
		if errX != nil || errY != nil || !bytes.Equal(jx, jy) {
			return false
		}
	}
	return true
}

// prepareMainUpdate is prepareUpdateManaged's work for a write of the
// object itself (not /status): the stored metadata that cannot change,
// the finalizer and metadata rules, the built-in kind's decoding and
// admission, and the generation. m (the new metadata) is changed in
// place; it returns the members to store and, for a built-in kind, the
// decoded members managedFields are recorded from.
func (s *Server) prepareMainUpdate(ctx context.Context, res *registry.Resource, cur *storage.Object, m *meta.ObjectMeta, newRest, oldRest []jsonv.Member, subresource, manager, apiVersion string, dryRun bool) (rest []jsonv.Member, decoded []byte, err error) {
	old := cur.Meta
	rest = newRest
	// An update keeps the stored status; a pod's binding, which bypasses
	// the pod's update rules, sets its PodScheduled condition too.
	if res.HasStatus() && subresource != "binding" {
		rest = storage.ReplaceMember(newRest, "status", storage.FindMember(oldRest, "status"))
	}
	if m.UID == "" {
		m.UID = old.UID
	}
	if m.UID != old.UID {
		return nil, nil, apistatus.Invalid(res.Group, res.Kind, m.Name, []apistatus.FieldError{apistatus.FieldInvalid("metadata.uid", m.UID, "field is immutable")})
	}
	m.Namespace = old.Namespace
	m.CreationTimestamp = old.CreationTimestamp
	m.DeletionTimestamp = old.DeletionTimestamp
	if old.DeletionGracePeriodSeconds != nil {
		m.DeletionGracePeriodSeconds = old.DeletionGracePeriodSeconds
	}
	m.Generation = old.Generation
	if old.DeletionTimestamp != nil {
		var added []string
		for _, f := range m.Finalizers {
			if !slices.Contains(old.Finalizers, f) {
				added = append(added, f)
			}
		}
		if len(added) > 0 {
			return nil, nil, apistatus.Invalid(res.Group, res.Kind, m.Name, []apistatus.FieldError{apistatus.FieldForbidden("metadata.finalizers", fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", added))})
		}
	}
	if errs := validation.ObjectMeta(res, m); len(errs) > 0 {
		return nil, nil, apistatus.Invalid(res.Group, res.Kind, m.Name, errs)
	}
	if subresource != "binding" {
		rest = s.builtinDecoded(res, apiVersion, m, rest)
		if !res.Custom {
			decoded = storage.EncodeRest(builtinRecorded(res, apiVersion, rest))
		}
		if rest, err = s.mutateByPolicies(ctx, policyWrite{op: "UPDATE", res: res, apiVersion: apiVersion, name: m.Name, meta: m, rest: rest, old: cur,
			options: writeOptionsDoc("UpdateOptions", writeOptions{manager: manager, dryRun: dryRun}), dryRun: dryRun}); err != nil {
			return nil, nil, err
		}
		if rest, err = s.builtinAdmitUpdate(res, apiVersion, m, rest, oldRest, dryRun); err != nil {
			return nil, nil, err
		}
		if res.Group == "apps" && res.Kind == "DaemonSet" {
			oldDoc, newDoc := storage.DocumentOf(oldRest), storage.DocumentOf(rest)
			builtin.DaemonSetTemplateGeneration(m, old.Annotations, &newDoc, &oldDoc)
		}
	}
	if res.Generation && !sameSpec(oldRest, rest, res.HasStatus()) {
		m.Generation = old.Generation + 1
	}
	return rest, decoded, nil
}

// updateType is the field structure ordinary writes of res record their
// managedFields with: the built-in kind's schema, or maps with atomic
// lists for custom resources and kinds without one.
func updateType(res *registry.Resource, apiVersion string) apply.Type {
	if res.Custom {
		return apply.Type{}
	}
	group, version := splitAPIVersion(apiVersion)
	typ, ok := apply.ForKind(openapi.Builtin(), openapi.GVK{Group: group, Version: version, Kind: res.Kind})
	if !ok {
		return apply.Type{}
	}
	return typ
}

// commitUpdate stores next in place of cur. An update that removes the
// last finalizer of an object being deleted deletes it instead.
func (s *Server) commitUpdate(ctx context.Context, res *registry.Resource, cur, next *storage.Object) (*storage.Object, error) {
	typ := watch.Modified
	if next.Meta.DeletionTimestamp != nil && len(next.Meta.Finalizers) == 0 &&
		(next.Meta.DeletionGracePeriodSeconds == nil || *next.Meta.DeletionGracePeriodSeconds == 0) &&
		!controllers.SpecFinalizersRemain(res, next) {
		typ = watch.Deleted
	}
	if err := requestEnded(ctx); err != nil {
		return nil, err
	}
	obj, err := s.store.Commit(res.StorageKey(), cur.Key, typ, cur, func(rv int64) (*storage.Object, error) {
		if typ == watch.Deleted {
			// The DELETED event carries the last stored state (with
			// its finalizers), as on the real server.
			return cur.WithResourceVersion(rv)
		}
		return next.WithResourceVersion(rv)
	})
	if err != nil {
		return nil, err
	}
	s.releaseBuiltin(res, typ, obj)
	s.ctrl.AfterWrite(ctx, res, typ, cur, obj)
	if typ == watch.Deleted {
		return next.WithResourceVersion(obj.RV)
	}
	return obj, nil
}

// sameSpec reports whether two bodies agree outside metadata (and outside
// .status when status is a subresource): what metadata.generation tracks.
func sameSpec(a, b []jsonv.Member, statusApart bool) bool {
	strip := func(ms []jsonv.Member) jsonv.Value {
		v := jsonv.Value{Kind: jsonv.Object}
		for _, m := range ms {
			if m.Key != "status" || !statusApart {
				v.Obj = append(v.Obj, m)
			}
		}
		return v
	}
	return jsonv.Equal(strip(a), strip(b))
}

// rvString formats a resourceVersion.
func rvString(rv int64) string { return strconv.FormatInt(rv, 10) }

// finishUpdate ends a read-modify-write: with nothing changed (next is nil)
// it returns cur, with dryRun the would-be object, otherwise what
// commitUpdate stored. errChanged means the object moved meanwhile and the
// caller should read it again and retry.
func (s *Server) finishUpdate(ctx context.Context, res *registry.Resource, cur, next *storage.Object, dryRun bool) (*storage.Object, error) {
	switch {
	case next == nil:
		return cur, nil
	case dryRun:
		return next, nil
	default:
		return s.commitUpdate(ctx, res, cur, next)
	}
}
