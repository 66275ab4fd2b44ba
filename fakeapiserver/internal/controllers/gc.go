package controllers

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// The garbage collector: what kube-controller-manager's garbage collector
// does with metadata.ownerReferences, done by the server itself right
// after each committed write (AfterWrite), so a test sees the cascade
// finished when the write that caused it returns.
//
//   - Background (the default): once an owner is gone, each dependent
//     whose owners are all gone (or waiting for their dependents) is
//     deleted; one that still has a live owner only loses the references
//     to the gone ones.
//   - Foreground: the owner carries deletionTimestamp and the
//     foregroundDeletion finalizer; its dependents are deleted (in the
//     foreground themselves when they own objects); when no dependent
//     with blockOwnerDeletion=true is left the finalizer is removed and
//     the owner goes.
//   - Orphan: the orphan finalizer makes the collector remove the owner's
//     reference from every dependent, then the finalizer.
//   - A dependent created with a reference to an owner that does not
//     exist (no object of that kind and name, or another uid) is
//     collected as if its owner had just been deleted.
//
// Every change goes through the ordinary write paths (the Writer)
// and never holds the store's lock, so watchers see each MODIFIED and
// DELETED event in resourceVersion order.

// Finalizers the collector acts on.
const (
	finalizerForeground = "foregroundDeletion"
	finalizerOrphan     = "orphan"
)

// objectRef names one stored object: its storage table and key.
type objectRef struct {
	table, key string
}

// collector is the garbage collector's state: which objects name which
// owners, and which keyed tasks are running.
type collector struct {
	// mu guards every field below.
	mu sync.Mutex
	// dependents maps an owner's uid to the objects whose
	// ownerReferences named it when written. It may hold more than is
	// true now (readers check the current object), never less.
	dependents map[string]map[objectRef]struct{}
	// running marks a keyed task (foreground or orphan processing of one
	// owner, the sync of one namespace) in progress; again asks it to run
	// once more because something it depends on changed meanwhile.
	running map[string]bool
	again   map[string]bool
}

func newCollector() *collector {
	return &collector{
		dependents: map[string]map[objectRef]struct{}{},
		running:    map[string]bool{},
		again:      map[string]bool{},
	}
}

// maxTaskPasses bounds how often one keyed task reruns in a row, so a
// write loop between tasks cannot spin forever.
const maxTaskPasses = 1000

// run runs fn for key unless a run for key is in progress (on any
// goroutine), in which case that run repeats fn once it finishes. Work
// that triggers itself (deleting a dependent re-examines its owner)
// therefore runs as a loop, not as a recursion as deep as the number of
// objects.
func (g *collector) run(key string, fn func()) {
	g.mu.Lock()
	if g.running[key] {
		g.again[key] = true
		g.mu.Unlock()
		return
	}
	g.running[key] = true
	g.mu.Unlock()
	for pass := 0; ; pass++ {
		fn()
		g.mu.Lock()
		if !g.again[key] || pass >= maxTaskPasses {
			delete(g.running, key)
			delete(g.again, key)
			g.mu.Unlock()
			return
		}
		delete(g.again, key)
		g.mu.Unlock()
	}
}

// remember records obj's owners.
func (g *collector) remember(table string, obj *storage.Object) {
	if len(obj.Meta.OwnerReferences) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	ref := objectRef{table, obj.Key}
	for _, o := range obj.Meta.OwnerReferences {
		set := g.dependents[o.UID]
		if set == nil {
			set = map[objectRef]struct{}{}
			g.dependents[o.UID] = set
		}
		set[ref] = struct{}{}
	}
}

// forget drops the entries of a deleted object, unless an object written
// since under the same key names the same owner.
func (g *collector) forget(st *storage.Store, table string, obj *storage.Object) {
	if len(obj.Meta.OwnerReferences) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	cur := st.Get(table, obj.Key)
	ref := objectRef{table, obj.Key}
	for _, o := range obj.Meta.OwnerReferences {
		if cur != nil && ownerRefIndex(cur.Meta, o.UID) >= 0 {
			continue
		}
		g.dropLocked(o.UID, ref)
	}
}

func (g *collector) dropLocked(uid string, ref objectRef) {
	if set := g.dependents[uid]; set != nil {
		delete(set, ref)
		if len(set) == 0 {
			delete(g.dependents, uid)
		}
	}
}

// candidates returns the objects that named uid as an owner.
func (g *collector) candidates(uid string) []objectRef {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]objectRef, 0, len(g.dependents[uid]))
	for ref := range g.dependents[uid] {
		out = append(out, ref)
	}
	slices.SortFunc(out, func(a, b objectRef) int {
		if a.table != b.table {
			return cmp.Compare(a.table, b.table)
		}
		return cmp.Compare(a.key, b.key)
	})
	return out
}

// dependent is an object that names an owner, as it is now.
type dependent struct {
	res *registry.Resource
	obj *storage.Object
	ref meta.OwnerReference
}

// dependentsOf returns the objects whose ownerReferences name uid now,
// in a stable order, dropping index entries that are no longer true.
func (s *Controllers) dependentsOf(uid string) []dependent {
	var out []dependent
	for _, ref := range s.gc.candidates(uid) {
		cur := s.store.Get(ref.table, ref.key)
		res := s.resourceForTable(ref.table)
		i := -1
		if cur != nil {
			i = ownerRefIndex(cur.Meta, uid)
		}
		if i < 0 || res == nil {
			s.gc.mu.Lock()
			if cur == nil || ownerRefIndex(cur.Meta, uid) < 0 {
				s.gc.dropLocked(uid, ref)
			}
			s.gc.mu.Unlock()
			continue
		}
		out = append(out, dependent{res: res, obj: cur, ref: cur.Meta.OwnerReferences[i]})
	}
	return out
}

// resourceForTable returns a served resource stored in table, or nil.
func (s *Controllers) resourceForTable(table string) *registry.Resource {
	for _, grp := range s.registry.Snapshot() {
		for _, v := range grp.Versions {
			for _, r := range v.Resources {
				if r.StorageKey() == table {
					return r
				}
			}
		}
	}
	return nil
}

func sameOwnerRef(a, b meta.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		isTrue(a.Controller) == isTrue(b.Controller) && isTrue(a.BlockOwnerDeletion) == isTrue(b.BlockOwnerDeletion)
}

func isTrue(b *bool) bool { return b != nil && *b }

func ownerRefIndex(m *meta.ObjectMeta, uid string) int {
	return slices.IndexFunc(m.OwnerReferences, func(o meta.OwnerReference) bool { return o.UID == uid })
}

// collect is the collector's reaction to one committed write.
func (s *Controllers) collect(ctx context.Context, res *registry.Resource, typ watch.EventType, prev, obj *storage.Object) {
	table := res.StorageKey()
	if typ == watch.Deleted {
		s.gc.forget(s.store, table, obj)
		for _, d := range s.dependentsOf(obj.Meta.UID) {
			s.attemptToDelete(ctx, d.res, d.obj)
		}
		s.recheckOwners(ctx, obj)
		if obj.Meta.Namespace != "" {
			s.namespaceContentChanged(ctx, obj.Meta.Namespace)
		}
		return
	}
	s.gc.remember(table, obj)
	if obj.Meta.DeletionTimestamp != nil {
		switch {
		case slices.Contains(obj.Meta.Finalizers, finalizerOrphan):
			s.orphanDependents(ctx, res, obj)
		case slices.Contains(obj.Meta.Finalizers, finalizerForeground):
			s.deleteDependents(ctx, res, obj)
		}
	}
	if prev != nil && slices.EqualFunc(prev.Meta.OwnerReferences, obj.Meta.OwnerReferences, sameOwnerRef) {
		return
	}
	if len(obj.Meta.OwnerReferences) > 0 {
		s.attemptToDelete(ctx, res, obj)
	}
	if prev != nil {
		// A dependent that no longer blocks may let an owner go.
		s.recheckOwners(ctx, prev)
	}
}

// ownerState is what the collector finds at the end of an owner reference.
type ownerState uint8

const (
	// ownerSolid: the owner exists and is not waiting for its dependents.
	ownerSolid ownerState = iota
	// ownerAbsent: no object of that kind and name, or one with another
	// uid (the reference dangles).
	ownerAbsent
	// ownerWaiting: the owner is being deleted in the foreground.
	ownerWaiting
	// ownerUnknown: the kind is not served; the reference is left alone.
	ownerUnknown
)

// lookupOwner resolves one of dep's owner references.
func (s *Controllers) lookupOwner(dep *meta.ObjectMeta, ref meta.OwnerReference) (ownerState, *registry.Resource, *storage.Object) {
	res := s.registry.ByKind(ref.APIVersion, ref.Kind)
	if res == nil {
		return ownerUnknown, nil, nil
	}
	ns := ""
	if res.Namespaced {
		if dep.Namespace == "" {
			// A cluster-scoped object cannot be owned by a namespaced one.
			return ownerAbsent, res, nil
		}
		ns = dep.Namespace
	}
	o := s.store.Get(res.StorageKey(), storage.ObjectKey(ns, ref.Name))
	switch {
	case o == nil || o.Meta.UID != ref.UID:
		return ownerAbsent, res, nil
	case waitingForDependents(o.Meta):
		return ownerWaiting, res, o
	}
	return ownerSolid, res, o
}

func waitingForDependents(m *meta.ObjectMeta) bool {
	return m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, finalizerForeground)
}

// recheckOwners re-examines the owners of obj that wait for their
// dependents: obj going (or dropping its reference) may release them.
func (s *Controllers) recheckOwners(ctx context.Context, obj *storage.Object) {
	for _, ref := range obj.Meta.OwnerReferences {
		if st, res, owner := s.lookupOwner(obj.Meta, ref); st == ownerWaiting {
			s.deleteDependents(ctx, res, owner)
		}
	}
}

// attemptToDelete deletes a dependent whose owners are all gone or
// waiting for their dependents, or removes the references to such owners
// when it has a live one too.
func (s *Controllers) attemptToDelete(ctx context.Context, res *registry.Resource, dep *storage.Object) {
	cur := s.store.Get(res.StorageKey(), dep.Key)
	if cur == nil || cur.Meta.UID != dep.Meta.UID {
		return
	}
	if cur.Meta.DeletionTimestamp != nil {
		if waitingForDependents(cur.Meta) {
			s.deleteDependents(ctx, res, cur)
		}
		return
	}
	var solid, gone, waiting int
	for _, ref := range cur.Meta.OwnerReferences {
		switch st, _, _ := s.lookupOwner(cur.Meta, ref); st {
		case ownerAbsent:
			gone++
		case ownerWaiting:
			waiting++
		default:
			solid++
		}
	}
	switch {
	case gone+waiting == 0:
		return
	case solid > 0:
		s.rewriteMeta(ctx, res, cur, func(m *meta.ObjectMeta) bool {
			kept := m.OwnerReferences[:0:0]
			for _, ref := range m.OwnerReferences {
				if st, _, _ := s.lookupOwner(m, ref); st == ownerSolid || st == ownerUnknown {
					kept = append(kept, ref)
				}
			}
			changed := len(kept) != len(m.OwnerReferences)
			m.OwnerReferences = kept
			return changed
		})
		return
	}
	policy := "Background"
	switch {
	case waiting > 0 && len(s.dependentsOf(cur.Meta.UID)) > 0:
		policy = "Foreground"
		if s.ownsWaitingObject(cur.Meta.UID) {
			// An ownership cycle: stop blocking the owners so the
			// cycle can be deleted.
			s.rewriteMeta(ctx, res, cur, unblockOwners)
		}
	case slices.Contains(cur.Meta.Finalizers, finalizerOrphan):
		policy = "Orphan"
	case slices.Contains(cur.Meta.Finalizers, finalizerForeground):
		policy = "Foreground"
	}
	s.collectorDelete(ctx, res, cur, policy)
}

// ownsWaitingObject reports whether one of uid's dependents is itself
// waiting for its dependents.
func (s *Controllers) ownsWaitingObject(uid string) bool {
	return slices.ContainsFunc(s.dependentsOf(uid), func(d dependent) bool { return waitingForDependents(d.obj.Meta) })
}

func unblockOwners(m *meta.ObjectMeta) bool {
	changed := false
	for i, ref := range m.OwnerReferences {
		if isTrue(ref.BlockOwnerDeletion) {
			f := false
			m.OwnerReferences[i].BlockOwnerDeletion = &f
			changed = true
		}
	}
	return changed
}

// collectorDelete deletes obj through the ordinary delete path with the
// given propagation policy and obj's uid as a precondition.
func (s *Controllers) collectorDelete(ctx context.Context, res *registry.Resource, obj *storage.Object, policy string) {
	opts := meta.DeleteOptions{PropagationPolicy: &policy}
	uid := obj.Meta.UID
	opts.Preconditions = &meta.Preconditions{UID: &uid}
	if res.StorageKey() == "/pods" && obj.Meta.Namespace != "" && s.namespaceTerminating(obj.Meta.Namespace) {
		// No kubelet confirms a graceful pod deletion here.
		zero := int64(0)
		opts.GracePeriodSeconds = &zero
	}
	if _, _, err := s.writer.Delete(ctx, res, obj.Meta.Namespace, obj.Meta.Name, opts); err != nil && !isGone(err) {
		s.log.Debug("garbage collector: delete", "resource", res.GroupResource(), "key", obj.Key, "err", err)
	}
}

// isGone reports the errors that mean the object was already deleted or
// replaced: nothing left to do.
func isGone(err error) bool {
	var st *meta.Status
	return errors.As(err, &st) && (st.IsNotFound() || st.Code == 409)
}

// deleteDependents advances the foreground deletion of owner: its
// dependents are deleted and, once none of them blocks, the
// foregroundDeletion finalizer is removed.
func (s *Controllers) deleteDependents(ctx context.Context, res *registry.Resource, owner *storage.Object) {
	table, key, uid := res.StorageKey(), owner.Key, owner.Meta.UID
	s.gc.run("foreground/"+uid, func() {
		cur := s.store.Get(table, key)
		if cur == nil || cur.Meta.UID != uid || !waitingForDependents(cur.Meta) {
			return
		}
		blocking := 0
		for _, d := range s.dependentsOf(uid) {
			if isTrue(d.ref.BlockOwnerDeletion) {
				blocking++
			}
			s.attemptToDelete(ctx, d.res, d.obj)
		}
		if blocking > 0 {
			// Deleting them re-runs this task, which then counts again.
			return
		}
		s.rewriteMeta(ctx, res, cur, func(m *meta.ObjectMeta) bool {
			m.Finalizers = slices.DeleteFunc(m.Finalizers, func(f string) bool { return f == finalizerForeground })
			return true
		})
	})
}

// orphanDependents processes the orphan finalizer: the owner's reference
// is removed from every dependent, then the finalizer from the owner.
func (s *Controllers) orphanDependents(ctx context.Context, res *registry.Resource, owner *storage.Object) {
	table, key, uid := res.StorageKey(), owner.Key, owner.Meta.UID
	s.gc.run("orphan/"+uid, func() {
		cur := s.store.Get(table, key)
		if cur == nil || cur.Meta.UID != uid || !slices.Contains(cur.Meta.Finalizers, finalizerOrphan) {
			return
		}
		for _, d := range s.dependentsOf(uid) {
			s.rewriteMeta(ctx, d.res, d.obj, func(m *meta.ObjectMeta) bool {
				m.OwnerReferences = slices.DeleteFunc(m.OwnerReferences, func(o meta.OwnerReference) bool { return o.UID == uid })
				return true
			})
		}
		s.rewriteMeta(ctx, res, cur, func(m *meta.ObjectMeta) bool {
			m.Finalizers = slices.DeleteFunc(m.Finalizers, func(f string) bool { return f == finalizerOrphan })
			return true
		})
	})
}

// rewriteMeta changes the metadata of obj (while it keeps its uid) through
// the ordinary update commit; change reports whether it changed anything.
func (s *Controllers) rewriteMeta(ctx context.Context, res *registry.Resource, obj *storage.Object, change func(m *meta.ObjectMeta) bool) {
	s.rewrite(ctx, res, obj, false, func(m *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, bool) {
		return rest, change(m)
	})
}

// RewriteFunc edits an object's metadata in place and returns its other
// members (parsed only when asked for) and whether anything changed.
type RewriteFunc func(m *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, bool)

// rewrite changes obj (while it keeps its uid) through the ordinary update
// commit, retrying on concurrent writes; withBody parses the members
// beside metadata for change to edit. An update that removes the last
// finalizer of an object being deleted deletes it, as for any client.
func (s *Controllers) rewrite(ctx context.Context, res *registry.Resource, obj *storage.Object, withBody bool, change RewriteFunc) {
	table, uid := res.StorageKey(), obj.Meta.UID
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(table, obj.Key)
		if cur == nil || cur.Meta.UID != uid {
			return
		}
		next, err := Rewritten(res, cur, withBody, change)
		if next == nil && err == nil {
			return
		}
		if err == nil {
			_, err = s.writer.CommitUpdate(ctx, res, cur, next)
		}
		if errors.Is(err, storage.ErrChanged) {
			continue
		}
		if err != nil {
			s.log.Debug("garbage collector: update", "resource", res.GroupResource(), "key", cur.Key, "err", err)
		}
		return
	}
}

// Rewritten builds the next version of cur, or nil when change changes
// nothing.
func Rewritten(res *registry.Resource, cur *storage.Object, withBody bool, change RewriteFunc) (*storage.Object, error) {
	m := storage.CloneMeta(cur.Meta)
	if !withBody {
		if _, ok := change(m, nil); !ok {
			return nil, nil
		}
		return storage.Assemble(cur.Kind, cur.APIVersion, m, cur.Body[cur.MetaEnd:len(cur.Body)-1], cur.Fields)
	}
	rest, err := storage.RestOf(cur)
	if err != nil {
		return nil, err
	}
	rest, ok := change(m, rest)
	if !ok {
		return nil, nil
	}
	doc := storage.DocumentOf(rest)
	return storage.Assemble(cur.Kind, cur.APIVersion, m, storage.EncodeRest(rest), res.SelectableFields(&doc))
}
