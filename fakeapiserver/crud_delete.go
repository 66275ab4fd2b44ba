package fakeapiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// DELETE: immediate removal, or (finalizers, graceful pods, Foreground and
// Orphan propagation) a deletionTimestamp now and removal when the last
// finalizer goes.

func (s *Server) parseDeleteOptions(r *http.Request) (meta.DeleteOptions, error) {
	var o meta.DeleteOptions
	body, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
	if err != nil {
		return o, err
	}
	if len(body) > 0 {
		if mt, err := request.BodyMediaType(r); err != nil {
			return o, err
		} else if body, err = request.ToJSON(body, mt, "DeleteOptions", false, s.opts.MaxRequestBodyBytes); err != nil {
			return o, err
		}
		if err := json.Unmarshal(body, &o); err != nil {
			return o, apistatus.BadRequest(fmt.Sprintf("error decoding DeleteOptions: %v", err))
		}
	}
	q := r.URL.Query()
	if v := q.Get("gracePeriodSeconds"); v != "" {
		g, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, apistatus.BadRequest(fmt.Sprintf("gracePeriodSeconds: invalid value %q", v))
		}
		o.GracePeriodSeconds = &g
	}
	if v := q.Get("propagationPolicy"); v != "" {
		o.PropagationPolicy = &v
	}
	o.DryRun = append(o.DryRun, q["dryRun"]...)
	return o, validateDeleteOptions(o)
}

// validateDeleteOptions refuses DeleteOptions the real server refuses
// (422 on DeleteOptions).
func validateDeleteOptions(o meta.DeleteOptions) error {
	if err := checkDryRun(o.DryRun); err != nil {
		return apistatus.Invalid("meta.k8s.io", "DeleteOptions", "", []apistatus.FieldError{*err})
	}
	if p := o.PropagationPolicy; p != nil {
		switch *p {
		case "Background", "Foreground", "Orphan":
		default:
			return apistatus.Invalid("meta.k8s.io", "DeleteOptions", "", []apistatus.FieldError{apistatus.FieldNotSupported("propagationPolicy", *p, "Foreground", "Background", "Orphan", "nil")})
		}
		if o.OrphanDependents != nil {
			return apistatus.Invalid("meta.k8s.io", "DeleteOptions", "", []apistatus.FieldError{apistatus.FieldInvalid("propagationPolicy", *p, "orphanDependents and deletionPropagation cannot be both set")})
		}
	}
	return nil
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	n, err := request.Negotiate(r, false)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	opts, err := s.parseDeleteOptions(r)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	obj, deleted, err := s.delete(r.Context(), res, nsFor(res, info), info.Name, opts)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	if deleted && !res.DeleteReturnsObject {
		st := &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess,
			Details: &meta.StatusDetails{Name: info.Name, Group: res.Group, Kind: res.Name, UID: obj.Meta.UID}}
		request.WriteBody(w, request.Negotiation{Pretty: n.Pretty, Protobuf: n.Protobuf}, http.StatusOK, request.Marshal(st))
		return
	}
	request.WriteBody(w, n, http.StatusOK, request.EncodeObject(obj, n.Format, request.GV(res.Group, info.Version)))
}

// delete deletes one object. It returns the object (its last state when
// removed, the updated one when deletion is delayed) and whether it was
// removed.
func (s *Server) delete(ctx context.Context, res *registry.Resource, ns, name string, opts meta.DeleteOptions) (*storage.Object, bool, error) {
	table := res.StorageKey()
	key := storage.ObjectKey(ns, name)
	dryRun := len(opts.DryRun) > 0
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(table, key)
		if cur == nil {
			return nil, false, apistatus.NotFound(res.GR(), name)
		}
		if err := checkPreconditions(apistatus.GroupResource{Group: res.Group, Resource: res.Kind}, cur, name, opts); err != nil {
			return nil, false, err
		}
		if err := s.admitByPolicies(ctx, policyWrite{op: "DELETE", res: res, apiVersion: cur.APIVersion, name: name, old: cur,
			options: deleteOptionsDoc(opts), dryRun: dryRun}); err != nil {
			return nil, false, err
		}
		if hook := s.ctrl.DeleteHook(res); hook != nil && !dryRun {
			if handled, obj, err := hook(ctx, res, cur, opts); handled || err != nil {
				return obj, false, err
			}
		}
		next, err := s.pendingDeletion(res, cur, opts)
		if err != nil {
			return nil, false, err
		}
		if next != nil {
			if dryRun {
				return next, false, nil
			}
			if next == cur {
				return cur, false, nil
			}
			obj, err := s.store.Commit(table, key, watch.Modified, cur, next.WithResourceVersion)
			if errors.Is(err, storage.ErrChanged) {
				continue
			}
			if err != nil {
				return nil, false, err
			}
			s.ctrl.AfterWrite(ctx, res, watch.Modified, cur, obj)
			return obj, false, nil
		}
		if dryRun {
			return cur, true, nil
		}
		obj, err := s.store.Commit(table, key, watch.Deleted, cur, cur.WithResourceVersion)
		if errors.Is(err, storage.ErrChanged) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		s.releaseBuiltin(res, watch.Deleted, obj)
		s.ctrl.AfterWrite(ctx, res, watch.Deleted, cur, obj)
		return cur, true, nil
	}
	return nil, false, apistatus.Conflict(res.GR(), name, apistatus.MsgModified)
}

// checkPreconditions answers the 409 of a delete whose preconditions cur
// does not meet; kindGR names the object in the message.
func checkPreconditions(kindGR apistatus.GroupResource, cur *storage.Object, name string, opts meta.DeleteOptions) error {
	p := opts.Preconditions
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != cur.Meta.UID {
		return apistatus.Conflict(kindGR, name, fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, cur.Meta.UID))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != cur.Meta.ResourceVersion {
		return apistatus.Conflict(kindGR, name, fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, cur.Meta.ResourceVersion))
	}
	return nil
}

// pendingDeletion decides whether a delete is delayed. It returns nil to
// remove the object now, cur when deletion is already pending and nothing
// changes, or the object with deletionTimestamp (and any propagation
// finalizer) to store instead.
func (s *Server) pendingDeletion(res *registry.Resource, cur *storage.Object, opts meta.DeleteOptions) (*storage.Object, error) {
	m := cur.Meta
	finalizers := slices.Clone(m.Finalizers)
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case "Foreground":
			finalizers = addFinalizer(finalizers, "foregroundDeletion")
		case "Orphan":
			finalizers = addFinalizer(finalizers, "orphan")
		}
	} else if opts.OrphanDependents != nil && *opts.OrphanDependents {
		finalizers = addFinalizer(finalizers, "orphan")
	}
	grace := s.gracePeriod(res, cur, opts)
	if len(finalizers) == 0 && grace == 0 {
		return nil, nil
	}
	if m.DeletionTimestamp != nil && slices.Equal(finalizers, m.Finalizers) && grace == 0 {
		return cur, nil
	}
	next := storage.CloneMeta(m)
	next.Finalizers = finalizers
	if next.DeletionTimestamp == nil {
		t := meta.NewTime(s.clock.Now().Add(secondsDuration(grace)))
		next.DeletionTimestamp = &t
		g := grace
		next.DeletionGracePeriodSeconds = &g
		if next.Generation > 0 {
			next.Generation++
		}
	}
	rest, err := storage.RestOf(cur)
	if err != nil {
		return nil, err
	}
	if res.StorageKey() == "/namespaces" {
		rest = storage.SetStatusPhase(rest, "Terminating")
	}
	return storage.Assemble(cur.Kind, cur.APIVersion, next, storage.EncodeRest(rest), cur.Fields)
}

// gracePeriod is the grace a pod bound to a node gets (30 s unless the
// request or the pod says otherwise); everything else is deleted at once.
func (s *Server) gracePeriod(res *registry.Resource, cur *storage.Object, opts meta.DeleteOptions) int64 {
	if res.StorageKey() != "/pods" {
		return 0
	}
	if opts.GracePeriodSeconds != nil {
		return max(*opts.GracePeriodSeconds, 0)
	}
	if v, _ := cur.Field("spec.nodeName"); v == "" {
		return 0
	}
	if phase, _ := cur.Field("status.phase"); phase == "Succeeded" || phase == "Failed" {
		return 0
	}
	if cur.Meta.DeletionGracePeriodSeconds != nil {
		return *cur.Meta.DeletionGracePeriodSeconds
	}
	return 30
}

func addFinalizer(fs []string, f string) []string {
	if slices.Contains(fs, f) {
		return fs
	}
	return append(fs, f)
}

// handleDeleteCollection serves DELETE on a collection: every object the
// selectors (and the shardSelector, when sharding is on) match is
// deleted; the answer lists them. As on the real server, the
// shardSelector is parsed when the collection is listed, after the
// DeleteOptions are checked.
func (s *Server) handleDeleteCollection(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	n, err := request.Negotiate(r, false)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	lo, err := request.ParseListOptions(r, res, "", false, !s.opts.DisableWatchList)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	opts, err := s.parseDeleteOptions(r)
	if err == nil {
		err = s.shardOption(r, &lo)
	}
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	ns := nsFor(res, info)
	snap, _ := s.store.Current(res.StorageKey())
	page := s.page(snap, 0, ns, "", 0, 0, lo, res)
	var deleted []*storage.Object
	for _, obj := range page.items {
		o, _, err := s.delete(r.Context(), res, obj.Meta.Namespace, obj.Meta.Name, opts)
		var st *meta.Status
		if errors.As(err, &st) && st.IsNotFound() {
			continue
		}
		if err != nil {
			request.WriteError(w, r, err)
			return
		}
		deleted = append(deleted, o)
	}
	page = listResult{items: deleted, rv: s.store.ResourceVersion(), shard: lo.Shard}
	request.WriteBody(w, n, http.StatusOK, s.encodeList(res, info.Version, n.Format, page))
}

func secondsDuration(s int64) time.Duration { return time.Duration(s) * time.Second }
