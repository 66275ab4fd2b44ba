package cache

import (
	"fmt"

	"github.com/kubecache/kubecache/meta"
)

// ReplaceNamespace is Replace confined to one namespace: it queues Replaced
// for every item, in order, and Deleted, FinalStateUnknown, for every
// known object of namespace that items lack; objects of other namespaces
// are left alone. Every item must be in namespace. Unlike Replace it does
// not count as the first Replace (HasSynced) and does not change
// ResourceVersion. An informer that lists and watches each of several
// namespaces on its own relists one of them with it, and with no items
// forgets a namespace it stops watching. It fails, queueing nothing, if an
// item has no key or is in another namespace.
func (c *queueCore[T]) ReplaceNamespace(namespace string, items []T, resourceVersion string) error {
	for _, obj := range items {
		if meta.IsNil(obj) {
			continue // keysOf refuses it
		}
		if ns := obj.GetObjectMeta().Namespace; ns != namespace {
			return fmt.Errorf("replace namespace %q: item %s/%s is in another namespace", namespace, ns, obj.GetObjectMeta().Name)
		}
	}
	keys, err := c.key.keysOf(items)
	if err != nil {
		return err
	}
	return c.replaceIn(&namespace, keys, items, resourceVersion)
}
