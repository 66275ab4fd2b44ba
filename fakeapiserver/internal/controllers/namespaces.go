package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// Namespaces: created with the "kubernetes" finalizer in spec; deleting one
// marks it Terminating (creates inside it are then refused with 403),
// deletes everything in it through the ordinary delete path (so finalizers
// hold objects, and the namespace with them, and owners cascade) and, once
// nothing is left, removes the "kubernetes" finalizer, which deletes it.
// That is the namespace controller's job on a real cluster; here the
// server does it right after each write that could let it progress, so
// tests need no controller. While content remains the namespace carries
// the controller's status conditions (NamespaceContentRemaining,
// NamespaceFinalizersRemaining…). The default namespaces cannot be
// deleted.

var protectedNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

// finalizerKubernetes is the namespace controller's spec finalizer.
const finalizerKubernetes = "kubernetes"

// labelNamespaceName is the label every namespace carries with its own
// name, so label selectors can pick namespaces by name.
const labelNamespaceName = "kubernetes.io/metadata.name"

// namespaceLabelHook sets kubernetes.io/metadata.name on every create and
// update. A real server does this while defaulting the decoded body, before
// managedFields are recorded, so the writer's entry owns the label.
func (s *Controllers) namespaceLabelHook(_ context.Context, m *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, error) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[labelNamespaceName] = m.Name
	return rest, nil
}

// NamespaceSpecDefault gives a namespace created without a spec the
// "kubernetes" finalizer. It runs after managedFields are recorded, as the
// real server's create strategy does, so no manager owns spec.finalizers.
func NamespaceSpecDefault(rest []jsonv.Member) []jsonv.Member {
	if storage.FindMember(rest, "spec") != nil {
		return rest
	}
	spec := jsonv.NewObject()
	spec.Set("finalizers", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{jsonv.NewString(finalizerKubernetes)}})
	return storage.ReplaceMember(rest, "spec", &spec)
}

func (s *Controllers) namespaceDeleteHook(ctx context.Context, res *registry.Resource, cur *storage.Object, _ meta.DeleteOptions) (bool, *storage.Object, error) {
	name := cur.Meta.Name
	if protectedNamespaces[name] {
		st := apistatus.New(403, meta.ReasonForbidden, fmt.Sprintf("namespaces %q is forbidden: this namespace may not be deleted", name))
		st.Details = &meta.StatusDetails{Name: name, Kind: "namespaces"}
		return true, nil, st
	}
	terminating := cur
	if cur.Meta.DeletionTimestamp == nil {
		next, err := Rewritten(res, cur, true, func(m *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, bool) {
			// A namespace marked for deletion has no grace period, as
			// on the real server: its finalizers hold it.
			t := meta.NewTime(s.now())
			m.DeletionTimestamp = &t
			m.DeletionGracePeriodSeconds = nil
			return storage.SetStatusPhase(rest, "Terminating"), true
		})
		if err != nil {
			return true, nil, err
		}
		terminating, err = s.store.Commit(res.StorageKey(), cur.Key, watch.Modified, cur, next.WithResourceVersion)
		if errors.Is(err, storage.ErrChanged) {
			return true, nil, apistatus.Conflict(res.GR(), name, apistatus.MsgModified)
		}
		if err != nil {
			return true, nil, err
		}
		s.AfterWrite(ctx, res, watch.Modified, cur, terminating)
	}
	s.syncNamespace(ctx, name)
	if now := s.store.Get(res.StorageKey(), cur.Key); now != nil && now.Meta.UID == cur.Meta.UID {
		return true, now, nil
	}
	return true, terminating, nil
}

// namespaceTerminating reports whether namespace ns is being deleted.
func (s *Controllers) namespaceTerminating(ns string) bool {
	o := s.store.Get("/namespaces", ns)
	return o != nil && o.Meta.DeletionTimestamp != nil
}

// namespaceContentChanged lets a terminating namespace progress after an
// object in it was deleted.
func (s *Controllers) namespaceContentChanged(ctx context.Context, ns string) {
	if s.namespaceTerminating(ns) {
		s.syncNamespace(ctx, ns)
	}
}

// syncNamespace advances the deletion of namespace ns.
func (s *Controllers) syncNamespace(ctx context.Context, ns string) {
	if s.noNamespaces {
		return
	}
	s.gc.run("namespace/"+ns, func() { s.syncNamespaceOnce(ctx, ns) })
}

func (s *Controllers) syncNamespaceOnce(ctx context.Context, name string) {
	nsRes := s.registry.Lookup("", "v1", "namespaces")
	nsObj := s.store.Get("/namespaces", name)
	if nsRes == nil || nsObj == nil || nsObj.Meta.DeletionTimestamp == nil {
		return
	}
	resources := s.namespacedResources()
	for _, res := range resources {
		for _, obj := range s.objectsIn(res, name) {
			if obj.Meta.DeletionTimestamp == nil {
				s.collectorDelete(ctx, res, obj, "Background")
			}
		}
	}
	remaining := map[string]int{}
	finalizers := map[string]int{}
	for _, res := range resources {
		for _, obj := range s.objectsIn(res, name) {
			remaining[res.Name+"."+res.Group]++
			for _, f := range obj.Meta.Finalizers {
				finalizers[f]++
			}
		}
	}
	s.rewrite(ctx, nsRes, nsObj, true, func(m *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, bool) {
		if len(remaining) > 0 {
			return setNamespaceConditions(rest, namespaceConditions(remaining, finalizers, meta.NewTime(s.now())))
		}
		return removeSpecFinalizer(rest, finalizerKubernetes)
	})
}

// namespacedResources returns one served resource per namespaced storage
// table that holds objects.
func (s *Controllers) namespacedResources() []*registry.Resource {
	var out []*registry.Resource
	seen := map[string]bool{}
	for _, grp := range s.registry.Snapshot() {
		for _, v := range grp.Versions {
			for _, res := range v.Resources {
				if !res.Namespaced || res.IsVirtual() || seen[res.StorageKey()] {
					continue
				}
				seen[res.StorageKey()] = true
				out = append(out, res)
			}
		}
	}
	return out
}

// objectsIn returns the objects of res in namespace ns now.
func (s *Controllers) objectsIn(res *registry.Resource, ns string) []*storage.Object {
	snap, _ := s.store.Current(res.StorageKey())
	var out []*storage.Object
	snap.Ascend(ns+"/", func(_ string, obj *storage.Object) bool {
		if obj.Meta.Namespace != ns {
			return false
		}
		out = append(out, obj)
		return true
	})
	return out
}

// namespaceConditions are the status conditions the namespace controller
// reports while content remains, with its messages.
func namespaceConditions(remaining, finalizers map[string]int, now meta.Time) []map[string]any {
	counts := func(m map[string]int, format string) string {
		parts := make([]string, 0, len(m))
		for k, n := range m {
			parts = append(parts, fmt.Sprintf(format, k, n))
		}
		sort.Strings(parts)
		return strings.Join(parts, ", ")
	}
	cond := func(typ, status, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": status, "lastTransitionTime": now, "reason": reason, "message": msg}
	}
	out := []map[string]any{
		cond("NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"),
		cond("NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"),
		cond("NamespaceDeletionContentFailure", "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"),
		cond("NamespaceContentRemaining", "True", "SomeResourcesRemain", "Some resources are remaining: "+counts(remaining, "%s has %d resource instances")),
	}
	if len(finalizers) > 0 {
		out = append(out, cond("NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain", "Some content in the namespace has finalizers remaining: "+counts(finalizers, "%s in %d resource instances")))
	} else {
		out = append(out, cond("NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished"))
	}
	return out
}

// setNamespaceConditions sets status.conditions, keeping the transition
// time of a condition whose status did not change; it reports whether
// anything changed.
func setNamespaceConditions(rest []jsonv.Member, conds []map[string]any) ([]jsonv.Member, bool) {
	st := jsonv.NewObject()
	if cur := storage.FindMember(rest, "status"); cur != nil && cur.Kind == jsonv.Object {
		st = cur.Clone()
	}
	old := st.Get("conditions")
	for _, c := range conds {
		if old == nil || old.Kind != jsonv.Array {
			break
		}
		for _, o := range old.Arr {
			if t := o.Get("type"); t != nil && t.Str == c["type"] {
				if v := o.Get("status"); v != nil && v.Str == c["status"] {
					if lt := o.Get("lastTransitionTime"); lt != nil {
						c["lastTransitionTime"] = lt.Str
					}
				}
			}
		}
	}
	parsed, err := jsonv.ParseGo(conds)
	if err != nil {
		return rest, false
	}
	if old != nil && jsonv.Equal(*old, parsed.Value) {
		return rest, false
	}
	st.Set("conditions", parsed.Value)
	return storage.ReplaceMember(rest, "status", &st), true
}

// removeSpecFinalizer removes f from spec.finalizers.
func removeSpecFinalizer(rest []jsonv.Member, f string) ([]jsonv.Member, bool) {
	spec := storage.FindMember(rest, "spec")
	if spec == nil || spec.Kind != jsonv.Object {
		return rest, false
	}
	fs := spec.Get("finalizers")
	if fs == nil || fs.Kind != jsonv.Array {
		return rest, false
	}
	kept := slices.DeleteFunc(slices.Clone(fs.Arr), func(v jsonv.Value) bool { return v.Kind == jsonv.String && v.Str == f })
	if len(kept) == len(fs.Arr) {
		return rest, false
	}
	next := spec.Clone()
	next.Set("finalizers", jsonv.Value{Kind: jsonv.Array, Arr: kept})
	return storage.ReplaceMember(rest, "spec", &next), true
}

// SpecFinalizersRemain reports whether obj is a namespace whose
// spec.finalizers still hold it: an update that leaves metadata.finalizers
// empty does not delete such a namespace.
func SpecFinalizersRemain(res *registry.Resource, obj *storage.Object) bool {
	if res.StorageKey() != "/namespaces" {
		return false
	}
	doc, err := obj.Document()
	if err != nil {
		return false
	}
	spec := doc.Get("spec")
	if spec == nil {
		return false
	}
	fs := spec.Get("finalizers")
	return fs != nil && fs.Kind == jsonv.Array && len(fs.Arr) > 0
}
