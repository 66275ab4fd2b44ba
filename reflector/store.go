package reflector

import (
	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
)

// Store is what a Reflector writes into. cache.Store satisfies it (the
// Indexer and the informer's DeltaFIFO both do), and so does anything with
// these four methods. The Reflector calls it from one goroutine; the store
// must make the writes visible to its readers safely.
//
// Replace is the end of a list: the store must hold exactly items
// afterwards, and its readers must see either the old contents or the new,
// never a mix. The reflector hands over each object once and never modifies
// it.
//
// A store may offer more, which the reflector uses when it is there:
// BulkReplacer (fill a relist one object at a time, no slice of the whole
// list), Lookup (reuse unchanged objects, refuse to go back in time) and
// Resyncer (Options.ResyncPeriod) and Bookmarker (told of bookmarks).
type Store[T meta.Object] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	Replace(items []T, resourceVersion string) error
}

// BulkReplacer is a Store that can be replaced one object at a time:
// BeginReplace stages a new contents while readers keep the old, and the
// replacement's Commit swaps them in one step. With it a list streams from
// the response body into the store without the reflector ever holding the
// list. cache.Store satisfies it.
type BulkReplacer[T meta.Object] interface {
	BeginReplace() cache.Replacement[T]
}

// Lookup reads what a store holds under a "namespace/name" (or "name") key.
// The reflector uses it to refuse a watch event that would move an object's
// resourceVersion backwards, and to reuse the stored object for an
// unchanged item of a streaming list. It must be safe for concurrent use.
// cache.Store satisfies it.
type Lookup[T meta.Object] interface {
	GetByKey(key string) (item T, exists bool)
}

// Resyncer is a Store that re-delivers everything it knows on Resync (the
// informer's DeltaFIFO). A Reflector with a ResyncPeriod calls it that often.
type Resyncer interface {
	Resync() error
}

// Bookmarker is a Store told of the watch's bookmarks: Bookmark is called,
// from the reflector's goroutine, after a BOOKMARK event moved the
// reflector's resume point to resourceVersion without changing an object.
// Everything written to the store before the call is at or below that
// resourceVersion. The informer uses it to know how fresh its cache is.
type Bookmarker interface {
	Bookmark(resourceVersion string)
}
