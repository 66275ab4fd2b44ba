package controllers

import (
	"context"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// Hooks give a few resources behaviour beyond storage: namespaces
// (namespaces.go) and CustomResourceDefinitions (crd.go). Everything else
// is plain storage.

// ObjectHook may adjust (or reject) an object's body before a create or
// update is committed.
type ObjectHook func(ctx context.Context, m *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, error)

// DeleteHookFunc may take over a delete; handled says it did.
type DeleteHookFunc func(ctx context.Context, res *registry.Resource, cur *storage.Object, opts meta.DeleteOptions) (handled bool, obj *storage.Object, err error)

// afterHook runs after a committed write (prev is nil for a create).
type afterHook func(ctx context.Context, typ watch.EventType, prev, obj *storage.Object)

// CreateHook returns res's hook before a create commits, or nil.
func (s *Controllers) CreateHook(res *registry.Resource) ObjectHook {
	return s.createHooks[res.StorageKey()]
}

// UpdateHook returns res's hook before an update commits, or nil.
func (s *Controllers) UpdateHook(res *registry.Resource) ObjectHook {
	return s.updateHooks[res.StorageKey()]
}

// DeleteHook returns res's hook that may take over a delete, or nil.
func (s *Controllers) DeleteHook(res *registry.Resource) DeleteHookFunc {
	return s.deleteHooks[res.StorageKey()]
}

// AfterWrite runs the resource's after-write hook, if any, then the
// garbage collector and namespace deletion (gc.go, namespaces.go).
func (s *Controllers) AfterWrite(ctx context.Context, res *registry.Resource, typ watch.EventType, prev, obj *storage.Object) {
	if h := s.afterHooks[res.StorageKey()]; h != nil {
		h(ctx, typ, prev, obj)
	}
	if !s.noGC {
		s.collect(ctx, res, typ, prev, obj)
	}
}
