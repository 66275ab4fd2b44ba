package informer

import (
	"fmt"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
)

// Transform rewrites each object before the informer stores it: drop
// managedFields, strip a large status, keep only what the controller
// reads. It runs on the reflector's goroutine, once per object received —
// for watch events and for every item of a list, streaming or paginated —
// and never on an object the cache already holds (an unchanged object
// reused during a relist is not transformed twice).
//
// Func receives a freshly decoded object that nobody else has seen yet, so
// it may modify it in place and return it, or return another object. It
// must keep the object's namespace and name. An error leaves the object out
// of the cache: for a list the whole list fails and is retried, for a
// watch event the event is reported and dropped — both through
// Options.OnError, naming the object.
//
// Name identifies the transform: a Factory shares an informer only between
// callers asking for the same Name, so one Name must always mean one
// function. The zero Transform does nothing.
type Transform[T meta.Object] struct {
	Name string
	Func func(obj T) (T, error)
}

// DropManagedFields is the transform most controllers want: it removes
// metadata.managedFields, which the server sends with every object and
// almost no controller reads.
func DropManagedFields[T meta.Object]() Transform[T] {
	return Transform[T]{Name: "drop-managed-fields", Func: func(obj T) (T, error) {
		obj.GetObjectMeta().ManagedFields = nil
		return obj, nil
	}}
}

// queueStore is the Store the informer hands its reflector: the queue,
// behind the transform, noticing when the queue has synced.
type queueStore[T meta.Object] struct {
	inf       *Informer[T]
	q         cache.Queue[T]
	transform func(T) (T, error)
}

func (s *queueStore[T]) Add(obj T) error {
	rv := changeRV(obj)
	obj, err := s.transformed(obj, s.storedFunc(obj))
	if err != nil {
		return err
	}
	return s.wrote(rv, s.q.Add(obj))
}

func (s *queueStore[T]) Update(obj T) error {
	rv := changeRV(obj)
	obj, err := s.transformed(obj, s.storedFunc(obj))
	if err != nil {
		return err
	}
	return s.wrote(rv, s.q.Update(obj))
}

func (s *queueStore[T]) Delete(obj T) error {
	rv := changeRV(obj)
	obj, err := s.transformed(obj, s.storedFunc(obj))
	if err != nil {
		return err
	}
	return s.wrote(rv, s.q.Delete(obj))
}

// wrote notes a change at rv written to the queue (err nil), for the
// informer's freshness; a set of namespaces notes it per member instead.
func (s *queueStore[T]) wrote(rv string, err error) error {
	if err == nil && s.inf.multi == nil {
		s.inf.wrote(rv, &s.inf.fresh.written)
	}
	return err
}

// changeRV is the resourceVersion of the change obj is, as received
// (before a transform).
func changeRV[T meta.Object](obj T) string {
	if meta.IsNil(obj) {
		return ""
	}
	return obj.GetObjectMeta().ResourceVersion
}

func (s *queueStore[T]) Replace(items []T, resourceVersion string) error {
	for i, obj := range items {
		out, err := s.transformed(obj, s.storedFunc(obj))
		if err != nil {
			return err
		}
		items[i] = out
	}
	err := s.q.Replace(items, resourceVersion)
	if err == nil {
		s.inf.progressed(resourceVersion, true)
	}
	s.inf.checkSynced()
	return err
}

func (s *queueStore[T]) BeginReplace() cache.Replacement[T] {
	return &replacement[T]{s: s, r: s.q.BeginReplace()}
}

// Bookmark tells the informer that the reflector's resume point moved to
// resourceVersion by a bookmark.
func (s *queueStore[T]) Bookmark(resourceVersion string) { s.inf.progressed(resourceVersion, false) }

// GetByKey lets the reflector read the newest state the informer knows.
func (s *queueStore[T]) GetByKey(key string) (T, bool) { return s.q.GetByKey(key) }

// storedFunc returns a lookup of the object the queue holds under obj's
// key; nil without a transform, which needs no lookup.
func (s *queueStore[T]) storedFunc(obj T) func() (T, bool) {
	if s.transform == nil || meta.IsNil(obj) {
		return nil
	}
	return func() (T, bool) { return s.q.GetByKey(meta.Key(obj)) }
}

// transformed applies the transform to obj, unless obj is the object
// already stored (a reused, already transformed one).
func (s *queueStore[T]) transformed(obj T, stored func() (T, bool)) (T, error) {
	var zero T
	if s.transform == nil || meta.IsNil(obj) {
		return obj, nil
	}
	m := obj.GetObjectMeta()
	if cur, ok := stored(); ok && !meta.IsNil(cur) && cur.GetObjectMeta() == m {
		return obj, nil
	}
	key := meta.Key(obj)
	out, err := s.transform(obj)
	if err != nil {
		return zero, fmt.Errorf("transform %s: %w", key, err)
	}
	if meta.IsNil(out) {
		return zero, fmt.Errorf("transform %s: returned a nil object", key)
	}
	if got := meta.Key(out); got != key {
		return zero, fmt.Errorf("transform %s: changed the object's key to %q", key, got)
	}
	return out, nil
}

// replacement is the queue's Replacement behind the transform.
type replacement[T meta.Object] struct {
	s *queueStore[T]
	r cache.Replacement[T]
}

func (r *replacement[T]) Lookup(namespace, name string) (T, bool) { return r.r.Lookup(namespace, name) }

func (r *replacement[T]) Add(obj T) error {
	var stored func() (T, bool)
	if r.s.transform != nil && !meta.IsNil(obj) {
		m := obj.GetObjectMeta()
		stored = func() (T, bool) { return r.r.Lookup(m.Namespace, m.Name) }
	}
	obj, err := r.s.transformed(obj, stored)
	if err != nil {
		return err
	}
	return r.r.Add(obj)
}

func (r *replacement[T]) Commit(resourceVersion string) error {
	err := r.r.Commit(resourceVersion)
	if err == nil {
		r.s.inf.progressed(resourceVersion, true)
	}
	r.s.inf.checkSynced()
	return err
}

func (r *replacement[T]) Abort() { r.r.Abort() }
