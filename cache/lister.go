package cache

import (
	"errors"
	"fmt"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/selector"
)

// ErrNotFound is returned, wrapped with the key, by a Lister's Get for an
// object the cache does not hold.
var ErrNotFound = errors.New("not found in cache")

// Lister reads one resource from an Indexer the way a controller asks for
// it: by label selector, by name, and scoped to a namespace. It is what
// controllers use instead of the API server for reads; what it returns is
// as fresh as the informer filling the Indexer, and shared (see meta.Clone).
//
// A Lister relies on the Indexer's keys being "namespace/name" (the
// default, MetaNamespaceKeyFunc). It is a small value, safe for concurrent
// use.
type Lister[T meta.Object] struct {
	indexer *Indexer[T]
}

// NewLister returns a Lister over indexer.
func NewLister[T meta.Object](indexer *Indexer[T]) Lister[T] {
	return Lister[T]{indexer: indexer}
}

// List returns the objects of every namespace whose labels match sel, in no
// particular order. The zero selector.Labels matches everything.
func (l Lister[T]) List(sel selector.Labels) []T {
	return filterLabels(l.indexer.List(), sel)
}

// Get returns the cluster-scoped object called name; for a namespaced
// object use Namespace(ns).Get. It fails with an error wrapping ErrNotFound
// if the cache does not hold it.
func (l Lister[T]) Get(name string) (T, error) {
	return get(l.indexer, "", name)
}

// Namespace returns a Lister scoped to one namespace. The empty namespace
// scopes it to cluster-scoped objects.
func (l Lister[T]) Namespace(namespace string) NamespaceLister[T] {
	return NamespaceLister[T]{indexer: l.indexer, namespace: namespace}
}

// NamespaceLister is a Lister scoped to one namespace.
type NamespaceLister[T meta.Object] struct {
	indexer   *Indexer[T]
	namespace string
}

// List returns the objects of the namespace whose labels match sel, in no
// particular order, found through the namespace index.
func (l NamespaceLister[T]) List(sel selector.Labels) []T {
	return filterLabels(l.indexer.store.byNamespace(l.namespace), sel)
}

// Get returns the object called name in the namespace. It fails with an
// error wrapping ErrNotFound if the cache does not hold it.
func (l NamespaceLister[T]) Get(name string) (T, error) {
	return get(l.indexer, l.namespace, name)
}

func get[T meta.Object](x *Indexer[T], namespace, name string) (T, error) {
	key := MetaNamespaceKey(namespace, name)
	obj, ok := x.GetByKey(key)
	if !ok {
		var zero T
		return zero, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return obj, nil
}

// filterLabels keeps, in place, the objects whose labels match sel.
func filterLabels[T meta.Object](objs []T, sel selector.Labels) []T {
	if sel.Empty() {
		return objs
	}
	out := objs[:0]
	for _, o := range objs {
		if sel.Matches(o.GetObjectMeta().Labels) {
			out = append(out, o)
		}
	}
	clear(objs[len(out):])
	return out
}
