package informer

import (
	"sync"

	"github.com/kubecache/kubecache/meta"
)

// memberStore is the store one namespace's reflector writes into (see
// namespaces_set.go): its own map until the set launches, the informer's
// queue after.
type memberStore[T meta.Object] struct {
	set *namespaceSet[T]
	m   *member[T]

	// mu guards the fields below. It is held while a write goes to the
	// queue, so that the namespace's writes and the launch keep their
	// order.
	mu sync.Mutex
	// direct is set once writes go to the queue; removed once the
	// namespace left the set (writes are then dropped).
	direct, removed bool
	// buf holds the namespace's objects by key until the launch.
	buf map[string]T
	// listed is set by the first Replace, and listRV is the last one's
	// resourceVersion.
	listed bool
	listRV string
}

// Add writes obj.
func (s *memberStore[T]) Add(obj T) error {
	return s.write(obj, func(q *queueStore[T]) error { return q.Add(obj) }, func(buf map[string]T) { buf[meta.Key(obj)] = obj })
}

// Update writes obj.
func (s *memberStore[T]) Update(obj T) error {
	return s.write(obj, func(q *queueStore[T]) error { return q.Update(obj) }, func(buf map[string]T) { buf[meta.Key(obj)] = obj })
}

// Delete deletes obj.
func (s *memberStore[T]) Delete(obj T) error {
	return s.write(obj, func(q *queueStore[T]) error { return q.Delete(obj) }, func(buf map[string]T) { delete(buf, meta.Key(obj)) })
}

// write applies one change, obj: to the buffer before the launch, handed
// to the queue after, not at all once the namespace is removed.
func (s *memberStore[T]) write(obj T, queue func(*queueStore[T]) error, buffer func(map[string]T)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.removed:
		return nil
	case s.direct:
		return s.wrote(obj, queue(s.set.inf.store))
	}
	buffer(s.buf)
	return nil
}

// wrote notes, for the member's freshness, that obj went to the queue
// (err nil).
func (s *memberStore[T]) wrote(obj T, err error) error {
	if err == nil {
		s.set.inf.wrote(changeRV(obj), &s.m.written)
	}
	return err
}

// Replace is the end of one of the namespace's lists: kept until the
// launch, or queued as a ReplaceNamespace after.
func (s *memberStore[T]) Replace(items []T, resourceVersion string) error {
	s.mu.Lock()
	if s.removed {
		s.mu.Unlock()
		return nil
	}
	if !s.direct {
		s.buf = make(map[string]T, len(items))
		for _, obj := range items {
			s.buf[meta.Key(obj)] = obj
		}
		s.listed, s.listRV = true, resourceVersion
		s.mu.Unlock()
		s.set.maybeLaunch()
		return nil
	}
	err := s.set.relisted(s.m, items, resourceVersion)
	s.listRV = resourceVersion
	s.mu.Unlock()
	if err == nil {
		s.set.inf.progressed(resourceVersion, true)
	}
	return err
}

// GetByKey reads what the namespace's objects are, for its reflector.
func (s *memberStore[T]) GetByKey(key string) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.direct {
		return s.set.inf.store.GetByKey(key)
	}
	obj, ok := s.buf[key]
	return obj, ok
}

// Bookmark tells the informer that the namespace's resume point moved.
func (s *memberStore[T]) Bookmark(resourceVersion string) {
	s.mu.Lock()
	live := s.direct && !s.removed
	s.mu.Unlock()
	if live {
		s.set.inf.progressed(resourceVersion, false)
	}
}

// forget drops every later write, and deletes the namespace's objects
// from the cache if they reached it.
func (s *memberStore[T]) forget() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removed, s.buf = true, nil
	if !s.direct {
		return nil
	}
	return s.set.inf.store.replaceNamespace(s.m.ns, nil, "")
}

// namespaceReplacer is a queue that can replace one namespace's objects
// (cache.FIFO and cache.DeltaFIFO can).
type namespaceReplacer[T meta.Object] interface {
	ReplaceNamespace(namespace string, items []T, resourceVersion string) error
}

// replaceNamespace queues the replacement of namespace's objects by items,
// transformed.
func (s *queueStore[T]) replaceNamespace(namespace string, items []T, resourceVersion string) error {
	for i, obj := range items {
		out, err := s.transformed(obj, s.storedFunc(obj))
		if err != nil {
			return err
		}
		items[i] = out
	}
	return s.q.(namespaceReplacer[T]).ReplaceNamespace(namespace, items, resourceVersion)
}
