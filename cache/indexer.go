package cache

import (
	"fmt"

	"github.com/kubecache/kubecache/meta"
)

// Indexer is the cache: a thread-safe Store of objects by key, with named
// indexes over them. The namespace index (NamespaceIndex) is built in; add
// more with AddIndexers, at any time.
//
// Readers (List, Get, ByIndex...) never wait for decoding, index functions
// or event handlers: the Indexer never decodes anything, writers compute
// index values before they take the lock readers share, and Replace builds
// the new contents beside the old ones and swaps them in. Indexes always
// agree with the stored objects — provided nobody modifies a stored object:
// objects are shared, not copied (see meta.Clone).
//
// An Indexer is safe for concurrent use. It satisfies Store.
type Indexer[T meta.Object] struct {
	keyFunc KeyFunc[T]
	// metaKeys is set when keyFunc is MetaNamespaceKeyFunc, so that a
	// Replacement can build a key from a namespace and a name itself.
	metaKeys bool
	store    *threadSafeStore[T]
}

// NewIndexer returns an empty Indexer that keys objects with keyFunc, or
// with MetaNamespaceKeyFunc if keyFunc is nil. It has the namespace index.
// Prefer nil to passing MetaNamespaceKeyFunc: the Indexer then knows its
// keys are "namespace/name" and Replacement.Lookup need not call the key
// function.
//
// It is what client-go calls NewStore and NewIndexer: the Indexer is the
// store, and indexes are added with AddIndexers.
func NewIndexer[T meta.Object](keyFunc KeyFunc[T]) *Indexer[T] {
	metaKeys := keyFunc == nil
	if metaKeys {
		keyFunc = MetaNamespaceKeyFunc[T]
	}
	return &Indexer[T]{keyFunc: keyFunc, metaKeys: metaKeys, store: newThreadSafeStore[T]()}
}

// Add stores obj under its key, replacing any object stored there. It fails,
// changing nothing, if obj has no key or an index function fails on it.
func (x *Indexer[T]) Add(obj T) error {
	key, err := x.keyFunc(obj)
	if err != nil {
		return err
	}
	_, _, err = x.store.put(key, obj)
	return err
}

// Update is Add: the Indexer stores states, not changes.
func (x *Indexer[T]) Update(obj T) error { return x.Add(obj) }

// Delete removes the object stored under obj's key. Only the key of obj is
// used, so obj may be the last known state, not the stored one. It fails
// only if obj has no key; a missing object is not an error.
func (x *Indexer[T]) Delete(obj T) error {
	key, err := x.keyFunc(obj)
	if err != nil {
		return err
	}
	x.store.remove(key)
	return nil
}

// Put stores obj under key, replacing any object stored there, and returns
// the object it replaced (existed is false if there was none). It is Add
// for a caller that already holds obj's key, such as an informer applying
// a popped delta: the key is not computed again and the Indexer's lock is
// taken once for the read and the write.
//
// key must be the key the Indexer's KeyFunc gives obj. With the default
// KeyFunc (NewIndexer(nil)) Put checks this without allocating and fails
// with an error wrapping ErrKeyMismatch (or ErrNoName) otherwise; with a
// custom KeyFunc it cannot check cheaply and trusts the caller: an object
// stored under a wrong key would be found by GetByKey(key) but not by
// Get(obj), and a later Add of the same object would store it twice.
//
// It fails, changing nothing and returning the zero old value, if key is
// empty (ErrInvalidKey), obj is nil (ErrNilObject), or an index function
// fails on obj.
func (x *Indexer[T]) Put(key string, obj T) (old T, existed bool, err error) {
	if err := x.checkKey(key, obj); err != nil {
		var zero T
		return zero, false, err
	}
	return x.store.put(key, obj)
}

// DeleteByKey removes the object stored under key and returns it (existed
// is false, and nothing changes, if there was none). It is Delete for a
// caller that already holds the key. It fails only for an empty key
// (ErrInvalidKey).
func (x *Indexer[T]) DeleteByKey(key string) (old T, existed bool, err error) {
	if key == "" {
		var zero T
		return zero, false, fmt.Errorf("delete by key: %w: empty key", ErrInvalidKey)
	}
	old, existed = x.store.remove(key)
	return old, existed, nil
}

// checkKey checks the key handed to Put: not empty, obj not nil, and, when
// it can be checked without allocating (the default KeyFunc) or when the
// package's tests ask for it (verifyPutKeys), obj's key.
func (x *Indexer[T]) checkKey(key string, obj T) error {
	if key == "" {
		return fmt.Errorf("put: %w: empty key", ErrInvalidKey)
	}
	if meta.IsNil(obj) {
		return fmt.Errorf("put %q: %w", key, ErrNilObject)
	}
	if x.metaKeys {
		m := obj.GetObjectMeta()
		if m.Name != "" && isMetaNamespaceKey(key, m.Namespace, m.Name) {
			return nil
		}
	} else if !verifyPutKeys {
		return nil
	}
	want, err := x.keyFunc(obj)
	if err != nil {
		return fmt.Errorf("put %q: %w", key, err)
	}
	if want != key {
		return fmt.Errorf("put %q: %w: the object's key is %q", key, ErrKeyMismatch, want)
	}
	return nil
}

// verifyPutKeys makes Put check the key against a custom KeyFunc too, at
// the cost of computing it. The package's tests turn it on.
var verifyPutKeys bool

// List returns every stored object, in no particular order. The slice is
// the caller's; the objects are shared.
func (x *Indexer[T]) List() []T { return x.store.list() }

// ListKeys returns every key, in no particular order.
func (x *Indexer[T]) ListKeys() []string { return x.store.listKeys() }

// Len returns the number of stored objects.
func (x *Indexer[T]) Len() int { return x.store.len() }

// Get returns the object stored under obj's key.
func (x *Indexer[T]) Get(obj T) (item T, exists bool, err error) {
	key, err := x.keyFunc(obj)
	if err != nil {
		var zero T
		return zero, false, err
	}
	item, exists = x.store.get(key)
	return item, exists, nil
}

// GetByKey returns the object stored under key.
func (x *Indexer[T]) GetByKey(key string) (item T, exists bool) {
	return x.store.get(key)
}

// Replace makes items the Indexer's whole contents, as listed at
// resourceVersion. The new contents and their indexes are built while
// readers go on reading the old ones, then swapped in at once. It fails,
// changing nothing, if an item has no key or an index function fails on it.
// Of items with the same key, the last wins.
func (x *Indexer[T]) Replace(items []T, resourceVersion string) error {
	st := x.store.beginStaging(len(items))
	for _, obj := range items {
		key, err := x.keyFunc(obj)
		if err != nil {
			return err
		}
		if err := st.add(key, obj); err != nil {
			return err
		}
	}
	return st.commit(resourceVersion)
}

// BeginReplace starts a Replacement: Replace, one object at a time. The
// staged contents and their indexes are built beside the current ones,
// which readers keep seeing until Commit swaps them.
func (x *Indexer[T]) BeginReplace() Replacement[T] {
	return &indexerReplacement[T]{x: x, st: x.store.beginStaging(-1)}
}

// ResourceVersion returns the resourceVersion given to the last Replace or
// Commit: the point in the server's history the contents were last listed
// at. Add, Update and Delete do not change it.
func (x *Indexer[T]) ResourceVersion() string { return x.store.lastResourceVersion() }

// Index returns the objects that share at least one value with obj in the
// index called indexName: for the namespace index, the objects in obj's
// namespace.
func (x *Indexer[T]) Index(indexName string, obj T) ([]T, error) {
	if meta.IsNil(obj) {
		return nil, ErrNilObject
	}
	return x.store.index(indexName, obj)
}

// ByIndex returns the objects indexed under value in the index called
// indexName, in no particular order.
func (x *Indexer[T]) ByIndex(indexName, value string) ([]T, error) {
	return x.store.byIndex(indexName, value)
}

// IndexKeys returns the keys of the objects indexed under value in the index
// called indexName, in no particular order.
func (x *Indexer[T]) IndexKeys(indexName, value string) ([]string, error) {
	return x.store.indexKeys(indexName, value)
}

// ListIndexFuncValues returns every value at least one object is indexed
// under in the index called indexName: for the namespace index, every
// namespace that has objects.
func (x *Indexer[T]) ListIndexFuncValues(indexName string) ([]string, error) {
	return x.store.listIndexFuncValues(indexName)
}

// AddIndexers adds named indexes and indexes the objects already stored;
// readers keep using the existing indexes meanwhile. It fails, adding
// nothing, if a name is empty or already used (ErrIndexExists), a function
// is nil, or a function fails on a stored object.
func (x *Indexer[T]) AddIndexers(indexers Indexers[T]) error {
	return x.store.addIndexers(indexers)
}

// GetIndexers returns the Indexer's index functions by name, the built-in
// namespace index included. The map is the caller's.
func (x *Indexer[T]) GetIndexers() Indexers[T] { return x.store.indexers() }

// indexerReplacement is the Indexer's Replacement.
type indexerReplacement[T meta.Object] struct {
	x  *Indexer[T]
	st *staging[T]
	// buf holds the key Lookup builds, reused across calls.
	buf []byte
	// probe is the object Lookup hands a custom key function.
	probe T
	// hasProbe is set once probe is allocated.
	hasProbe bool
}

func (r *indexerReplacement[T]) Lookup(namespace, name string) (T, bool) {
	var zero T
	if r.st == nil {
		return zero, false
	}
	if r.x.metaKeys {
		r.buf = appendMetaNamespaceKey(r.buf[:0], namespace, name)
		return r.x.store.getBytes(r.buf)
	}
	return lookupWithKeyFunc(r.x.keyFunc, &r.probe, &r.hasProbe, namespace, name, r.x.store.get)
}

func (r *indexerReplacement[T]) Add(obj T) error {
	if r.st == nil {
		return ErrReplacementDone
	}
	key, err := r.x.keyFunc(obj)
	if err != nil {
		return err
	}
	return r.st.add(key, obj)
}

func (r *indexerReplacement[T]) Commit(resourceVersion string) error {
	if r.st == nil {
		return ErrReplacementDone
	}
	st := r.st
	r.st = nil
	return st.commit(resourceVersion)
}

func (r *indexerReplacement[T]) Abort() { r.st = nil }
