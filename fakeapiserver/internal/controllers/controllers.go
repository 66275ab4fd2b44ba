package controllers

import (
	"context"
	"log/slog"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// Controllers are the server's in-process controllers: the garbage
// collector, namespace deletion and CustomResourceDefinitions (which add
// and remove served resources). They read the store directly and write
// through writer, the same paths a client's request takes.
type Controllers struct {
	store    *storage.Store
	registry *registry.Registry
	now      func() time.Time
	log      *slog.Logger
	writer   Writer
	// gc is the garbage collector's state (gc.go).
	gc *collector
	// noGC and noNamespaces switch off the garbage collector and the
	// namespace controller (see Switches); set once in New.
	noGC, noNamespaces bool
	// The hooks give namespaces and CRDs their behaviour; set once in
	// newControllers.
	createHooks map[string]ObjectHook
	updateHooks map[string]ObjectHook
	deleteHooks map[string]DeleteHookFunc
	afterHooks  map[string]afterHook
}

// Writer is how the controllers change objects: through the
// server's ordinary delete and update commits, so admission, hooks and the
// garbage collector apply to their writes as to any client's.
type Writer interface {
	// Delete deletes the object as a DELETE request with opts would.
	Delete(ctx context.Context, res *registry.Resource, ns, name string, opts meta.DeleteOptions) (*storage.Object, bool, error)
	// CommitUpdate commits next in place of cur (as an update would) and
	// runs what follows a write.
	CommitUpdate(ctx context.Context, res *registry.Resource, cur, next *storage.Object) (*storage.Object, error)
}

// Switches turn off the controllers a real cluster runs in
// kube-controller-manager rather than in the API server, so a server can
// behave as a real API server alone does.
type Switches struct {
	// NoGarbageCollector leaves dependents of deleted owners in place and
	// objects with the foregroundDeletion or orphan finalizer waiting.
	NoGarbageCollector bool
	// NoNamespaceController leaves a deleted namespace Terminating with
	// its contents.
	NoNamespaceController bool
}

// New returns the controllers of a server's store and registry.
func New(st *storage.Store, reg *registry.Registry, now func() time.Time, log *slog.Logger, w Writer, sw Switches) *Controllers {
	s := &Controllers{store: st, registry: reg, now: now, log: log, writer: w, noGC: sw.NoGarbageCollector, noNamespaces: sw.NoNamespaceController}
	s.gc = newCollector()
	s.createHooks = map[string]ObjectHook{
		"/namespaces": s.namespaceLabelHook,
		"apiextensions.k8s.io/customresourcedefinitions": s.crdHook,
	}
	s.updateHooks = map[string]ObjectHook{
		"/namespaces": s.namespaceLabelHook,
		"apiextensions.k8s.io/customresourcedefinitions": s.crdHook,
	}
	s.deleteHooks = map[string]DeleteHookFunc{
		"/namespaces": s.namespaceDeleteHook,
	}
	s.afterHooks = map[string]afterHook{
		"apiextensions.k8s.io/customresourcedefinitions": s.crdAfter,
	}
	return s
}
