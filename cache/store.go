package cache

import (
	"errors"

	"github.com/kubecache/kubecache/meta"
)

// Store is the collection a Reflector mirrors a resource into: the
// operations of client-go's cache.Store, typed. Three types implement it,
// and each operation means something for each of them:
//
//   - *Indexer, the cache itself: Add, Update and Delete change the object
//     stored under the object's key; Replace swaps the whole contents.
//   - *DeltaFIFO and *FIFO, the queues an informer sits behind: Add, Update
//     and Delete queue an Added, Updated or Deleted delta; Replace queues a
//     Replaced delta per listed object and a Deleted delta, marked
//     FinalStateUnknown, for every known object the list no longer holds.
//
// For all three, List, ListKeys, Get and GetByKey read the newest state the
// store knows of each object, so that what was last written is what is
// read back. For the Indexer that is the stored object. For a queue it is
// the newest queued state of the key, else the state being processed by
// Pop, else the state in the KnownObjects behind the queue; an object whose
// newest state is a deletion is not there. (What is waiting in a queue is
// read with its own methods: Len, QueuedKeys.)
//
// The original interface also has Resync. A resync re-delivers every known
// object to whoever processes the store; a plain cache has no such consumer,
// so Resync is not part of Store but of Queue, the interface both queues
// satisfy.
//
// Objects passed to a Store, and objects it hands out, are shared: neither
// the Store nor its callers may modify them afterwards (see meta.Clone).
//
// Every implementation is safe for concurrent use.
type Store[T meta.Object] interface {
	// Add records that obj exists, with this state.
	Add(obj T) error
	// Update records a new state of obj. For the Indexer it is the same as
	// Add; the queues record the difference as the delta's type.
	Update(obj T) error
	// Delete records that obj no longer exists. Deleting an object the
	// store does not know is not an error.
	Delete(obj T) error
	// List returns every object the store knows, in no particular order.
	List() []T
	// ListKeys returns the keys List would return objects for.
	ListKeys() []string
	// Get returns the newest state known under obj's key; it fails only
	// if obj has no key.
	Get(obj T) (item T, exists bool, err error)
	// GetByKey returns the newest state known under key.
	GetByKey(key string) (item T, exists bool)
	// Replace replaces everything the store knows with items, the complete
	// result of a list read at resourceVersion. It is the whole-list form of
	// BeginReplace, kept because it is the form readers of client-go know.
	Replace(items []T, resourceVersion string) error
	// BeginReplace starts a replacement that is filled one object at a
	// time (so a Reflector can stream the pages of a list into the store
	// without holding the list) and takes effect at Commit.
	BeginReplace() Replacement[T]
}

// Replacement is a relist in progress: the objects of one complete list,
// added one at a time, that replace a Store's contents on Commit exactly as
// Replace(items, resourceVersion) would. Until Commit the Store is
// unchanged and serves its old contents.
//
// A Replacement is used by one goroutine. After Commit or Abort, Add and
// Commit fail with ErrReplacementDone.
type Replacement[T meta.Object] interface {
	// Lookup returns the object the store holds now — before Commit — for
	// namespace/name: for a queue, the newest state it knows, queued or
	// behind it. A Reflector uses it during a relist to reuse the object it
	// already has when the listed resourceVersion is unchanged, instead of
	// decoding it again. It is cheap: for an Indexer with the standard keys
	// it takes a read lock and does not allocate. With a custom KeyFunc it
	// asks the key function for the key of an object carrying only that
	// namespace and name, and reports false if the object found is not
	// namespace/name. After Commit or Abort it reports false.
	Lookup(namespace, name string) (T, bool)
	// Add stages obj. A later object with the same key replaces an earlier
	// one. It fails if obj has no key (or, for the Indexer, if an index
	// function fails on it); the replacement stays usable.
	Add(obj T) error
	// Commit makes the staged objects the store's contents, as read at
	// resourceVersion.
	Commit(resourceVersion string) error
	// Abort discards the staged objects. It is idempotent and safe after
	// Commit.
	Abort()
}

// ErrReplacementDone is returned by a Replacement used after its Commit or
// Abort.
var ErrReplacementDone = errors.New("replacement already committed or aborted")
