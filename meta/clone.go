package meta

import (
	"encoding/json"
	"fmt"
)

// Clone returns a deep copy of obj that shares no memory with it.
//
// Objects handed out by a cache, a lister or an event handler are shared
// with the cache and with every other reader: they must not be modified.
// To change one (before an update, say), Clone it and change the copy.
//
// Clone uses obj's own DeepCopy method when it has one returning T
// (Unstructured and PartialObjectMetadata do), and otherwise a JSON round
// trip, which copies exactly what the type's JSON encoding carries: fields
// tagged `json:"-"` and unexported fields are not copied. A nil obj clones
// to nil.
func Clone[T Object](obj T) (T, error) {
	if IsNil(obj) {
		return obj, nil
	}
	if c, ok := any(obj).(interface{ DeepCopy() T }); ok {
		return c.DeepCopy(), nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("clone %s %s: %w", typeName[T](), Key(obj), err)
	}
	return Decode[T](data)
}
