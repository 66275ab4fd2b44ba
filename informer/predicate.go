package informer

import (
	"maps"
	"slices"

	"github.com/kubecache/kubecache/meta"
)

// Predicate decides which notifications reach one handler
// (HandlerOptions.Predicate): a notification whose function returns false
// is skipped for that handler, which never sees it. A nil function lets
// every notification of its kind through. Predicates read only metadata,
// so one works for every object type.
//
// A resync reaches a handler as an update whose old and new object are the
// same, so a predicate on changes (GenerationChanged, LabelsChanged …)
// filters resyncs out too. Predicates run on the handler's goroutine; a
// panic in one is reported like a panic in the handler.
type Predicate struct {
	// Add decides on OnAdd(obj, initial).
	Add func(obj *meta.ObjectMeta, initial bool) bool
	// Update decides on OnUpdate(oldObj, newObj).
	Update func(oldObj, newObj *meta.ObjectMeta) bool
	// Delete decides on OnDelete(obj, finalStateUnknown).
	Delete func(obj *meta.ObjectMeta, finalStateUnknown bool) bool
}

// isZero reports whether p lets everything through without being asked.
func (p Predicate) isZero() bool { return p.Add == nil && p.Update == nil && p.Delete == nil }

func (p Predicate) add(obj *meta.ObjectMeta, initial bool) bool {
	return p.Add == nil || p.Add(obj, initial)
}

func (p Predicate) update(oldObj, newObj *meta.ObjectMeta) bool {
	return p.Update == nil || p.Update(oldObj, newObj)
}

func (p Predicate) delete(obj *meta.ObjectMeta, unknown bool) bool {
	return p.Delete == nil || p.Delete(obj, unknown)
}

// GenerationChanged passes updates that change metadata.generation, which
// the server bumps on a change to an object's spec and not on a change to
// its status or metadata. Adds and deletes pass.
func GenerationChanged() Predicate {
	return Predicate{Update: func(o, n *meta.ObjectMeta) bool { return o.Generation != n.Generation }}
}

// LabelsChanged passes updates that change the object's labels. Adds and
// deletes pass.
func LabelsChanged() Predicate {
	return Predicate{Update: func(o, n *meta.ObjectMeta) bool { return !maps.Equal(o.Labels, n.Labels) }}
}

// AnnotationChanged passes updates that change one of the annotations
// named by keys (added, removed or given another value); with no keys,
// updates that change any annotation. Adds and deletes pass.
func AnnotationChanged(keys ...string) Predicate {
	keys = slices.Clone(keys)
	return Predicate{Update: func(o, n *meta.ObjectMeta) bool {
		if len(keys) == 0 {
			return !maps.Equal(o.Annotations, n.Annotations)
		}
		for _, k := range keys {
			ov, ook := o.Annotations[k]
			nv, nok := n.Annotations[k]
			if ook != nok || ov != nv {
				return true
			}
		}
		return false
	}}
}

// ResourceVersionChanged passes updates whose resourceVersion changed: it
// drops resyncs and the unchanged objects a relist finds. Adds and deletes
// pass.
func ResourceVersionChanged() Predicate {
	return Predicate{Update: func(o, n *meta.ObjectMeta) bool { return o.ResourceVersion != n.ResourceVersion }}
}

// And passes a notification that every one of ps passes; with no ps,
// everything.
func And(ps ...Predicate) Predicate {
	ps = slices.Clone(ps)
	return Predicate{
		Add: func(m *meta.ObjectMeta, initial bool) bool {
			for _, p := range ps {
				if !p.add(m, initial) {
					return false
				}
			}
			return true
		},
		Update: func(o, n *meta.ObjectMeta) bool {
			for _, p := range ps {
				if !p.update(o, n) {
					return false
				}
			}
			return true
		},
		Delete: func(m *meta.ObjectMeta, unknown bool) bool {
			for _, p := range ps {
				if !p.delete(m, unknown) {
					return false
				}
			}
			return true
		},
	}
}

// Or passes a notification that at least one of ps passes; with no ps,
// nothing.
func Or(ps ...Predicate) Predicate {
	ps = slices.Clone(ps)
	return Predicate{
		Add: func(m *meta.ObjectMeta, initial bool) bool {
			return slices.ContainsFunc(ps, func(p Predicate) bool { return p.add(m, initial) })
		},
		Update: func(o, n *meta.ObjectMeta) bool {
			return slices.ContainsFunc(ps, func(p Predicate) bool { return p.update(o, n) })
		},
		Delete: func(m *meta.ObjectMeta, unknown bool) bool {
			return slices.ContainsFunc(ps, func(p Predicate) bool { return p.delete(m, unknown) })
		},
	}
}

// Not passes exactly the notifications p does not. A kind p lets through
// without a function (nil) is then dropped: Not(GenerationChanged())
// drops every add and delete.
func Not(p Predicate) Predicate {
	return Predicate{
		Add:    func(m *meta.ObjectMeta, initial bool) bool { return !p.add(m, initial) },
		Update: func(o, n *meta.ObjectMeta) bool { return !p.update(o, n) },
		Delete: func(m *meta.ObjectMeta, unknown bool) bool { return !p.delete(m, unknown) },
	}
}
