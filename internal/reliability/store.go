package reliability

import (
	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
)

// CheckedStore is a cache.Indexer that shows every write to a Monitor
// before making it: a reflector writing into it is checked for versions
// going backwards, whether they come from watch events or from a relist.
// It offers what a reflector looks for in a store (BeginReplace for
// streamed relists, GetByKey to reuse and guard objects), so the reflector
// takes the same paths as with a plain Indexer.
type CheckedStore[T meta.Object] struct {
	*cache.Indexer[T]
	mon    *Monitor
	source string
}

// NewCheckedStore returns an empty store reporting to mon; source names it
// in violations.
func NewCheckedStore[T meta.Object](mon *Monitor, source string) *CheckedStore[T] {
	return &CheckedStore[T]{Indexer: cache.NewIndexer[T](nil), mon: mon, source: source}
}

func (s *CheckedStore[T]) observe(obj T) {
	m := obj.GetObjectMeta()
	s.mon.Observe(s.source, s.source+":"+cache.MetaNamespaceKey(m.Namespace, m.Name), m.ResourceVersion)
}

// Add observes obj, then adds it.
func (s *CheckedStore[T]) Add(obj T) error {
	err := s.Indexer.Add(obj)
	s.observe(obj)
	return err
}

// Update observes obj, then stores it.
func (s *CheckedStore[T]) Update(obj T) error {
	err := s.Indexer.Update(obj)
	s.observe(obj)
	return err
}

// Delete observes the deletion's version, then deletes obj.
func (s *CheckedStore[T]) Delete(obj T) error {
	err := s.Indexer.Delete(obj)
	s.observe(obj)
	return err
}

// Replace observes every item, then replaces the contents.
func (s *CheckedStore[T]) Replace(items []T, resourceVersion string) error {
	err := s.Indexer.Replace(items, resourceVersion)
	for _, o := range items {
		s.observe(o)
	}
	return err
}

// BeginReplace starts a streamed replacement whose every item is observed.
func (s *CheckedStore[T]) BeginReplace() cache.Replacement[T] {
	return &checkedReplacement[T]{Replacement: s.Indexer.BeginReplace(), s: s}
}

// Snapshot returns what the store holds.
func (s *CheckedStore[T]) Snapshot() Snapshot { return SnapshotOf(s.Indexer.List()) }

// checkedReplacement observes each staged object when the replacement is
// committed (staged objects are not visible before).
type checkedReplacement[T meta.Object] struct {
	cache.Replacement[T]
	s      *CheckedStore[T]
	staged []T
}

func (r *checkedReplacement[T]) Add(obj T) error {
	if err := r.Replacement.Add(obj); err != nil {
		return err
	}
	r.staged = append(r.staged, obj)
	return nil
}

func (r *checkedReplacement[T]) Commit(resourceVersion string) error {
	err := r.Replacement.Commit(resourceVersion)
	if err == nil {
		for _, o := range r.staged {
			r.s.observe(o)
		}
	}
	r.staged = nil
	r.s.mon.Touch()
	return err
}

// SnapshotOf returns the snapshot of a list of objects.
func SnapshotOf[T meta.Object](items []T) Snapshot {
	s := make(Snapshot, len(items))
	for _, o := range items {
		m := o.GetObjectMeta()
		s[cache.MetaNamespaceKey(m.Namespace, m.Name)] = m.ResourceVersion
	}
	return s
}
