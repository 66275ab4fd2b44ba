package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// A decoded object keeps the empty lists its body gave (Decoded), and a
// stored one has none in its omitempty fields. The real server compares
// an update with the stored object by semantic equality, for which an
// empty slice and a nil one are the same: these helpers compare the
// fake's objects the same way.

// withoutEmptyLists returns a copy of v without the members, at any
// depth, whose value is an empty list.
func withoutEmptyLists(v *jsonv.Value) *jsonv.Value {
	if v == nil {
		return nil
	}
	out := v.Clone()
	dropEmptyLists(&out)
	return &out
}

// dropEmptyLists removes from v, in place, the members at any depth
// whose value is an empty list.
func dropEmptyLists(v *jsonv.Value) {
	switch v.Kind {
	case jsonv.Object:
		kept := v.Obj[:0]
		for _, m := range v.Obj {
			if m.Value.Kind == jsonv.Array && len(m.Value.Arr) == 0 {
				continue
			}
			dropEmptyLists(&m.Value)
			kept = append(kept, m)
		}
		v.Obj = kept
	case jsonv.Array:
		for i := range v.Arr {
			dropEmptyLists(&v.Arr[i])
		}
	}
}
