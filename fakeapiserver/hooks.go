package fakeapiserver

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

// objectHook may adjust (or reject) an object's body before a create or
// update is committed.
type objectHook func(ctx context.Context, m *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, error)

// deleteHook may take over a delete; handled says it did.
type deleteHook func(ctx context.Context, res *registry.Resource, cur *storage.Object, opts deleteOptions) (handled bool, obj *storage.Object, err error)

// afterHook runs after a committed write (prev is nil for a create).
type afterHook func(ctx context.Context, typ watch.EventType, prev, obj *storage.Object)

func (s *Server) installHooks() {
	s.gc = newCollector()
	s.createHooks = map[string]objectHook{
		"/namespaces": s.namespaceLabelHook,
		"apiextensions.k8s.io/customresourcedefinitions": s.crdHook,
	}
	s.updateHooks = map[string]objectHook{
		"/namespaces": s.namespaceLabelHook,
		"apiextensions.k8s.io/customresourcedefinitions": s.crdHook,
	}
	s.deleteHooks = map[string]deleteHook{
		"/namespaces": s.namespaceDeleteHook,
	}
	s.afterHooks = map[string]afterHook{
		"apiextensions.k8s.io/customresourcedefinitions": s.crdAfter,
	}
}

// afterWrite runs the resource's after-write hook, if any, then the
// garbage collector and namespace deletion (gc.go, namespaces.go).
func (s *Server) afterWrite(ctx context.Context, res *registry.Resource, typ watch.EventType, prev, obj *storage.Object) {
	if h := s.afterHooks[res.StorageKey()]; h != nil {
		h(ctx, typ, prev, obj)
	}
	s.collect(ctx, res, typ, prev, obj)
}
