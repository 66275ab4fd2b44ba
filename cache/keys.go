package cache

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubecache/kubecache/meta"
)

// Errors returned by key functions and by SplitMetaNamespaceKey. They are
// always wrapped with the detail of what was wrong; test for them with
// errors.Is.
var (
	// ErrNilObject: a nil object was handed to the cache.
	ErrNilObject = errors.New("nil object")
	// ErrNoName: the object has no metadata.name, so it has no key. An
	// empty key would silently merge every nameless object into one entry.
	ErrNoName = errors.New("object has no name")
	// ErrInvalidKey: a string is not a "namespace/name" or "name" key.
	ErrInvalidKey = errors.New("invalid object key")
	// ErrKeyMismatch: Indexer.Put was given a key that is not the
	// object's own.
	ErrKeyMismatch = errors.New("key is not the object's key")
)

// KeyFunc computes the key an object is stored under. It must be
// deterministic and must depend only on fields that never change for the
// life of the object (its namespace and name); it returns an error, never an
// empty key, for an object that has no identity.
type KeyFunc[T any] func(obj T) (string, error)

// MetaNamespaceKeyFunc is the default KeyFunc: "namespace/name" for a
// namespaced object and "name" for a cluster-scoped one (empty namespace).
// It fails with ErrNilObject for a nil object and with ErrNoName for an
// object whose metadata.name is empty.
//
// It is a generic function; assigning it to a KeyFunc[*Pod] variable or
// passing it where a KeyFunc[*Pod] is expected instantiates it.
func MetaNamespaceKeyFunc[T meta.Object](obj T) (string, error) {
	if meta.IsNil(obj) {
		return "", ErrNilObject
	}
	m := obj.GetObjectMeta()
	if m.Name == "" {
		if m.Namespace != "" {
			return "", fmt.Errorf("object in namespace %q: %w", m.Namespace, ErrNoName)
		}
		return "", ErrNoName
	}
	return MetaNamespaceKey(m.Namespace, m.Name), nil
}

// MetaNamespaceKey builds the key MetaNamespaceKeyFunc would return for an
// object with this namespace and name. It does not validate its arguments.
func MetaNamespaceKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// appendMetaNamespaceKey appends the key of namespace/name to dst, so that a
// lookup can build it in a reused buffer without allocating.
func appendMetaNamespaceKey(dst []byte, namespace, name string) []byte {
	if namespace != "" {
		dst = append(dst, namespace...)
		dst = append(dst, '/')
	}
	return append(dst, name...)
}

// SplitMetaNamespaceKey is the inverse of MetaNamespaceKeyFunc: it splits
// "namespace/name" into its parts and returns an empty namespace for a bare
// "name". A key with an empty part or more than one slash fails with an
// error wrapping ErrInvalidKey that names the key.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	namespace, name, found := strings.Cut(key, "/")
	switch {
	case !found:
		if key == "" {
			return "", "", fmt.Errorf("%w: empty key", ErrInvalidKey)
		}
		return "", key, nil
	case namespace == "":
		return "", "", fmt.Errorf("%w %q: empty namespace before the slash", ErrInvalidKey, key)
	case name == "":
		return "", "", fmt.Errorf("%w %q: empty name after the slash", ErrInvalidKey, key)
	case strings.Contains(name, "/"):
		return "", "", fmt.Errorf("%w %q: more than one slash", ErrInvalidKey, key)
	}
	return namespace, name, nil
}

// isMetaNamespaceKey reports whether key is MetaNamespaceKey(namespace,
// name), without building that key.
func isMetaNamespaceKey(key, namespace, name string) bool {
	if namespace == "" {
		return key == name
	}
	return len(key) == len(namespace)+1+len(name) &&
		key[len(namespace)] == '/' &&
		key[:len(namespace)] == namespace &&
		key[len(namespace)+1:] == name
}

// lookupWithKeyFunc finds the object get returns for namespace/name when
// keys come from a custom keyFunc: it computes the key of a probe object
// that has only that namespace and name (allocated once, in *probe), and
// accepts the result only if it really is namespace/name, in case keyFunc
// looks at more than those two fields.
func lookupWithKeyFunc[T meta.Object](keyFunc KeyFunc[T], probe *T, hasProbe *bool, namespace, name string, get func(string) (T, bool)) (T, bool) {
	var zero T
	if !*hasProbe {
		*probe = meta.New[T]()
		*hasProbe = true
	}
	m := (*probe).GetObjectMeta()
	*m = meta.ObjectMeta{Namespace: namespace, Name: name}
	key, err := keyFunc(*probe)
	*m = meta.ObjectMeta{}
	if err != nil {
		return zero, false
	}
	obj, ok := get(key)
	if !ok || meta.IsNil(obj) {
		return zero, false
	}
	if got := obj.GetObjectMeta(); got.Namespace != namespace || got.Name != name {
		return zero, false
	}
	return obj, true
}
