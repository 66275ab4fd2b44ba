package reflector

import "github.com/kubecache/kubecache/meta"

// Store is what a Reflector writes into: cache.Store satisfies it, and so
// can an informer's DeltaFIFO. The Reflector calls it from one goroutine;
// the store must make the writes visible to its readers safely.
//
// Replace is the end of a list: the store must hold exactly items afterwards,
// and its readers must see either the old contents or the new, never a mix.
// The reflector hands over each item once and never touches it again.
type Store[T meta.Object] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	Replace(items []T, resourceVersion string) error
	Resync() error
}

// Lookup reads what a store currently holds under a "namespace/name" (or
// "name") key. When the Store passed to NewReflector also implements Lookup
// (cache.Store does), the reflector uses it to reuse unchanged objects
// during a relist and to refuse any update that would move an object's
// resourceVersion backwards.
type Lookup[T meta.Object] interface {
	GetByKey(key string) (item T, exists bool, err error)
}
