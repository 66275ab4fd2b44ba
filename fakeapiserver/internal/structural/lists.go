package structural

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// listType reports the duplicates a set or a map list may not hold: a
// repeated item of a set, an item of a map list whose keys an earlier
// item has (shown as the keys' object), each at the later item's index.
func (v *validator) listType(x *jsonv.Value, s *Schema, path string) {
	switch s.ListType {
	case "set":
		for i := range x.Arr {
			for j := range i {
				if jsonv.Equal(x.Arr[i], x.Arr[j]) {
					v.add(apistatus.FieldError{Type: meta.CauseFieldValueDuplicate, Field: path + "[" + strconv.Itoa(i) + "]", Value: render(x.Arr[i])})
					break
				}
			}
		}
	case "map":
		seen := map[string]bool{}
		for i := range x.Arr {
			k := mapKey(&x.Arr[i], s.ListMapKeys)
			if k == nil {
				continue
			}
			id := string(jsonv.Marshal(*k))
			if seen[id] {
				v.add(apistatus.FieldError{Type: meta.CauseFieldValueDuplicate, Field: path + "[" + strconv.Itoa(i) + "]", Value: id})
			}
			seen[id] = true
		}
	}
}

// mapKey is the object of an item's map keys, or nil for an item that is
// not an object.
func mapKey(item *jsonv.Value, keys []string) *jsonv.Value {
	if item.Kind != jsonv.Object {
		return nil
	}
	k := jsonv.NewObject()
	for _, name := range keys {
		if f := item.Get(name); f != nil {
			k.Set(name, *f)
		}
	}
	return &k
}

// OldItem correlates item i of a list with the old list, as ratcheting
// does: a map list's item by its keys, a set's by equality; the items of
// an atomic list have no counterpart.
func OldItem(x, old *jsonv.Value, i int, s *Schema) *jsonv.Value {
	if old == nil || old.Kind != jsonv.Array {
		return nil
	}
	switch s.ListType {
	case "map":
		k := mapKey(&x.Arr[i], s.ListMapKeys)
		if k == nil {
			return nil
		}
		for j := range old.Arr {
			if ok := mapKey(&old.Arr[j], s.ListMapKeys); ok != nil && jsonv.Equal(*k, *ok) {
				return &old.Arr[j]
			}
		}
	case "set":
		for j := range old.Arr {
			if jsonv.Equal(x.Arr[i], old.Arr[j]) {
				return &old.Arr[j]
			}
		}
	}
	return nil
}
