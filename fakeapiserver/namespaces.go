package fakeapiserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// Namespaces: created with the "kubernetes" finalizer in spec; deleting one
// marks it Terminating, deletes everything in it and then removes it (the
// namespace controller's job on a real cluster, done here at once so tests
// need no controller). The default namespaces cannot be deleted.

var protectedNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

func (s *Server) namespaceCreateHook(_ context.Context, _ *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, error) {
	if findMember(rest, "spec") == nil {
		spec := jsonv.NewObject()
		spec.Set("finalizers", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{jsonv.NewString("kubernetes")}})
		rest = replaceMember(rest, "spec", &spec)
	}
	return rest, nil
}

func (s *Server) namespaceDeleteHook(ctx context.Context, res *Resource, cur *stored, _ deleteOptions) (bool, *stored, error) {
	name := cur.meta.Name
	if protectedNamespaces[name] {
		st := newStatus(403, meta.ReasonForbidden, fmt.Sprintf("namespaces %q is forbidden: this namespace may not be deleted", name))
		st.Details = &meta.StatusDetails{Name: name, Kind: "namespaces"}
		return true, nil, st
	}
	terminating := cur
	if cur.meta.DeletionTimestamp == nil {
		m := cloneMeta(cur.meta)
		t := meta.NewTime(s.clock.Now())
		m.DeletionTimestamp = &t
		zero := int64(0)
		m.DeletionGracePeriodSeconds = &zero
		rest, err := restOf(cur)
		if err != nil {
			return true, nil, err
		}
		rest = setStatusPhase(rest, "Terminating")
		next, err := assemble(cur.kind, cur.apiVersion, m, encodeRest(rest), cur.fields)
		if err != nil {
			return true, nil, err
		}
		terminating, err = s.store.commit(res.storageKey(), cur.key, watch.Modified, cur, func(rv int64) (*stored, error) {
			return next.withResourceVersion(rv)
		})
		if errors.Is(err, errChanged) {
			return true, nil, errConflict(res, name, msgModified)
		}
		if err != nil {
			return true, nil, err
		}
	}
	s.emptyNamespace(ctx, name)
	_, err := s.store.commit(res.storageKey(), terminating.key, watch.Deleted, terminating, func(rv int64) (*stored, error) {
		return terminating.withResourceVersion(rv)
	})
	if err != nil && !errors.Is(err, errChanged) {
		return true, nil, err
	}
	return true, terminating, nil
}

// emptyNamespace deletes every namespaced object in ns, finalizers or not.
func (s *Server) emptyNamespace(ctx context.Context, ns string) {
	for _, grp := range s.registry.snapshot() {
		for _, v := range grp.versions {
			for _, res := range v.resources {
				if !res.Namespaced {
					continue
				}
				snap, _ := s.store.current(res.storageKey())
				snap.Ascend(ns+"/", func(key string, obj *stored) bool {
					if obj.meta.Namespace != ns {
						return false
					}
					_, _ = s.store.commit(res.storageKey(), key, watch.Deleted, obj, func(rv int64) (*stored, error) {
						return obj.withResourceVersion(rv)
					})
					return true
				})
			}
		}
	}
}
