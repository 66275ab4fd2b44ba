package cache

import (
	"encoding/json"
	"fmt"

	"github.com/kubecache/kubecache/meta"
)

// Clone returns a deep copy of obj that the caller may modify.
//
// Objects handed out by an Indexer, by a queue or by a Lister are shared
// with the cache and with every other reader: modifying one in place
// changes what everyone sees without the cache knowing, so its indexes stop
// agreeing with it (an object whose label was changed in place is still
// found under the old label, and a later update can leave it indexed under
// both), and it races with concurrent readers. To change an object, Clone
// it, change the clone, and send the clone to the API server.
//
// Clone copies through the object's JSON form, so it copies exactly what
// the object would send to the server; unexported fields and fields
// without a JSON form are not copied.
func Clone[T meta.Object](obj T) (T, error) {
	var zero T
	if isNil(obj) {
		return zero, ErrNilObject
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return zero, fmt.Errorf("clone: %w", err)
	}
	out, err := meta.Decode[T](data)
	if err != nil {
		return zero, fmt.Errorf("clone: %w", err)
	}
	return out, nil
}
