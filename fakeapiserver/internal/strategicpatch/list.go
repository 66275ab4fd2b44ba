package strategicpatch

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// mergeListField merges the patch's list for a field into the original's
// by the field's strategy: merged, or replaced by the patch's list.
// deleteList says the patch's list came from $deleteFromPrimitiveList.
func (m *merger) mergeListField(orig, patch []jsonv.Value, meta PatchMeta, deleteList bool, path []string) ([]jsonv.Value, error) {
	if meta.Strategy != Merge {
		out := make([]jsonv.Value, len(patch))
		for i := range patch {
			out[i] = replacedValue(patch[i])
		}
		return out, nil
	}
	return m.mergeSlice(orig, patch, meta.MergeKey, deleteList, path)
}

// itemKind is the type class of a list's items.
type itemKind uint8

const (
	kindNone itemKind = iota
	kindObject
	kindScalar
)

// elementKind checks that every item of the lists has the same type and
// returns its class. Lists of lists are refused.
func elementKind(lists ...[]jsonv.Value) (itemKind, error) {
	var first *jsonv.Value
	for _, l := range lists {
		for i := range l {
			v := &l[i]
			if first == nil {
				first = v
				if v.Kind == jsonv.Array {
					return kindNone, errListOfLists
				}
				continue
			}
			if !sameGoType(*first, *v) || v.Kind == jsonv.Null {
				var all []jsonv.Value
				for _, l := range lists {
					all = append(all, jsonv.Value{Kind: jsonv.Array, Arr: l})
				}
				return kindNone, internal("list element types are not identical: " + goFormat(jsonv.Value{Kind: jsonv.Array, Arr: all}))
			}
		}
	}
	switch {
	case first == nil:
		return kindNone, internal("no elements in any of the given slices")
	case first.Kind == jsonv.Object:
		return kindObject, nil
	case first.Kind == jsonv.Null:
		return kindNone, internal("list element types are not identical: [<nil>]")
	}
	return kindScalar, nil
}

// mergeSlice merges two lists with the merge strategy: objects by
// mergeKey (with the $patch item directives), primitives as a set.
func (m *merger) mergeSlice(orig, patch []jsonv.Value, mergeKey string, deleteList bool, path []string) ([]jsonv.Value, error) {
	if len(orig) == 0 && len(patch) == 0 {
		return orig, nil
	}
	kind, err := elementKind(orig, patch)
	if err != nil {
		return nil, err
	}
	var merged []jsonv.Value
	if kind == kindScalar {
		if deleteList {
			return deleteFromSlice(orig, patch), nil
		}
		both := make([]jsonv.Value, 0, len(orig)+len(patch))
		both = append(both, orig...)
		both = append(both, patch...)
		merged = dedupeScalars(both)
	} else {
		if mergeKey == "" {
			return nil, internal("cannot merge lists without merge key for " + strings.Join(path, "."))
		}
		orig, patch, err = specialElements(orig, patch, mergeKey)
		if err != nil {
			return nil, err
		}
		merged, err = m.mergeByKey(orig, patch, mergeKey, path)
		if err != nil {
			return nil, err
		}
	}
	var inPatch, serverOnly []jsonv.Value
	if mergeKey == "" {
		inPatch, serverOnly, err = partitionPrimitives(merged, patch)
	} else {
		inPatch, serverOnly, err = partitionMaps(merged, patch, mergeKey)
	}
	if err != nil {
		return nil, err
	}
	return normalizeElementOrder(inPatch, serverOnly, patch, orig, mergeKey, kind)
}

// specialElements applies the $patch items of a merged list: delete
// removes the original's items with that merge key, replace makes the
// patch's other items the whole list. It returns the original and the
// patch items left to merge.
func specialElements(orig, patch []jsonv.Value, mergeKey string) ([]jsonv.Value, []jsonv.Value, error) {
	var plain []jsonv.Value
	replace := false
	for _, item := range patch {
		d := item.Get(directiveMarker)
		if d == nil {
			plain = append(plain, item)
			continue
		}
		switch {
		case d.Kind == jsonv.String && d.Str == "delete":
			kv := item.Get(mergeKey)
			if kv == nil {
				return nil, nil, errNoMergeKey(item, mergeKey)
			}
			kept := make([]jsonv.Value, 0, len(orig))
			for _, o := range orig {
				if ov := o.Get(mergeKey); ov != nil && scalarEqual(*ov, *kv) {
					continue
				}
				kept = append(kept, o)
			}
			orig = kept
		case d.Kind == jsonv.String && d.Str == "replace":
			replace = true
		case d.Kind == jsonv.String && d.Str == "merge":
			return nil, nil, internal("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, errBadPatchType(*d, item)
		}
	}
	if replace {
		out := make([]jsonv.Value, len(plain))
		for i := range plain {
			out[i] = replacedValue(plain[i])
		}
		return out, nil, nil
	}
	return orig, plain, nil
}

// mergeByKey merges each patch item into the original's item with the
// same merge key, or appends it.
func (m *merger) mergeByKey(orig, patch []jsonv.Value, mergeKey string, path []string) ([]jsonv.Value, error) {
	out := append([]jsonv.Value(nil), orig...)
	for _, item := range patch {
		kv := item.Get(mergeKey)
		if kv == nil {
			return nil, errNoMergeKey(item, mergeKey)
		}
		idx := -1
		for i := range out {
			if ov := out[i].Get(mergeKey); ov != nil && scalarEqual(*ov, *kv) {
				idx = i
				break
			}
		}
		if idx < 0 {
			out = append(out, replacedValue(item))
			continue
		}
		merged, err := m.mergeMap(out[idx], item, path)
		if err != nil {
			return nil, err
		}
		out[idx] = merged
	}
	return out, nil
}

// deleteFromSlice removes every occurrence of the patch's values.
func deleteFromSlice(orig, remove []jsonv.Value) []jsonv.Value {
	out := make([]jsonv.Value, 0, len(orig))
	for _, v := range orig {
		drop := false
		for _, r := range remove {
			if scalarEqual(v, r) {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, v)
		}
	}
	return out
}

// dedupeScalars removes repeated values the way the server does: each
// later duplicate is overwritten by the list's last item (the order is
// restored afterwards by normalizeElementOrder).
func dedupeScalars(s []jsonv.Value) []jsonv.Value {
	last := len(s) - 1
	for i := 0; i < last; i++ {
		for j := i + 1; j <= last; j++ {
			if scalarEqual(s[i], s[j]) {
				s[j] = s[last]
				s = s[:last]
				last--
				j--
			}
		}
	}
	return s
}

// partitionPrimitives splits list into the values present in by and the
// others, each in list order.
func partitionPrimitives(list, by []jsonv.Value) (in, others []jsonv.Value, err error) {
	set := map[string]bool{}
	for _, v := range by {
		k, err := scalarKey(v)
		if err != nil {
			return nil, nil, err
		}
		set[k] = true
	}
	for _, v := range list {
		k, err := scalarKey(v)
		if err != nil {
			return nil, nil, err
		}
		if set[k] {
			in = append(in, v)
		} else {
			others = append(others, v)
		}
	}
	return in, others, nil
}

// partitionMaps splits list into the objects whose merge key appears in
// by and the others.
func partitionMaps(list, by []jsonv.Value, mergeKey string) (in, others []jsonv.Value, err error) {
	for _, v := range list {
		if v.Kind != jsonv.Object {
			return nil, nil, errBadArgType("map[string]interface {}", &v)
		}
		kv := v.Get(mergeKey)
		if kv == nil {
			return nil, nil, errNoMergeKey(v, mergeKey)
		}
		found := false
		for i, b := range by {
			if b.Kind != jsonv.Object {
				return nil, nil, internal(fmt.Sprintf("value for key %d is not a map.", i))
			}
			if bv := b.Get(mergeKey); bv != nil && scalarEqual(*bv, *kv) {
				found = true
				break
			}
		}
		if found {
			in = append(in, v)
		} else {
			others = append(others, v)
		}
	}
	return in, others, nil
}

// normalizeElementOrder sorts the patch's items by patchOrder and the
// others by serverOrder, then interleaves them: an item of the original
// goes before a patch item only when both appear in serverOrder and it
// comes first there.
func normalizeElementOrder(patchItems, serverOnly, patchOrder, serverOrder []jsonv.Value, mergeKey string, kind itemKind) ([]jsonv.Value, error) {
	patchItems, err := normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	serverOnly, err = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	return mergeSorted(serverOnly, patchItems, serverOrder, mergeKey, kind), nil
}

func normalizeSliceOrder(toSort, order []jsonv.Value, mergeKey string, kind itemKind) ([]jsonv.Value, error) {
	var deletions []jsonv.Value
	if kind == kindObject {
		for _, l := range [][]jsonv.Value{toSort, order} {
			for _, v := range l {
				if v.Kind != jsonv.Object {
					return nil, errBadArgType("map[string]interface {}", &v)
				}
				if v.Get(mergeKey) == nil {
					return nil, errNoMergeKey(v, mergeKey)
				}
			}
		}
		var err error
		toSort, deletions, err = splitDeletions(toSort)
		if err != nil {
			return nil, err
		}
	}
	toSort = append([]jsonv.Value(nil), toSort...)
	// The server's comparison, kept as it is (it is not a strict order
	// when an item is missing from order; sort.SliceStable then decides).
	sort.SliceStable(toSort, func(i, j int) bool {
		if ii := indexOf(order, toSort[i], mergeKey, kind); ii >= 0 {
			if ij := indexOf(order, toSort[j], mergeKey, kind); ij >= 0 {
				return ii < ij
			}
		}
		return true
	})
	return append(toSort, deletions...), nil
}

// splitDeletions separates the items carrying "$patch": "delete".
func splitDeletions(l []jsonv.Value) (keep, deletions []jsonv.Value, err error) {
	for _, v := range l {
		if v.Kind != jsonv.Object {
			return nil, nil, errBadArgType("map[string]interface {}", &v)
		}
		if d := v.Get(directiveMarker); d != nil && d.Kind == jsonv.String && d.Str == "delete" {
			deletions = append(deletions, v)
		} else {
			keep = append(keep, v)
		}
	}
	return keep, deletions, nil
}

// mergeSorted interleaves left (the original's items) into right (the
// patch's), keeping the relative order of each.
func mergeSorted(left, right, serverOrder []jsonv.Value, mergeKey string, kind itemKind) []jsonv.Value {
	out := make([]jsonv.Value, 0, len(left)+len(right))
	i, j := 0, 0
	for i < len(left) || j < len(right) {
		switch {
		case i >= len(left):
			out = append(out, right[j])
			j++
		case j >= len(right):
			out = append(out, left[i])
			i++
		default:
			li := indexOf(serverOrder, left[i], mergeKey, kind)
			ri := indexOf(serverOrder, right[j], mergeKey, kind)
			if li >= 0 && ri >= 0 && li < ri {
				out = append(out, left[i])
				i++
			} else {
				out = append(out, right[j])
				j++
			}
		}
	}
	return out
}

// indexOf finds v in l: by merge key value for objects (an object
// without one matches another without one), by value otherwise.
func indexOf(l []jsonv.Value, v jsonv.Value, mergeKey string, kind itemKind) int {
	key := func(x jsonv.Value) *jsonv.Value {
		if kind != kindObject {
			return &x
		}
		if x.Kind != jsonv.Object {
			return nil
		}
		return x.Get(mergeKey)
	}
	want := key(v)
	for i := range l {
		got := key(l[i])
		if want == nil || got == nil {
			if want == nil && got == nil {
				return i
			}
			continue
		}
		if scalarEqual(*want, *got) {
			return i
		}
	}
	return -1
}

// scalarEqual compares two primitive values as the server's decoded Go
// values compare: numbers by value (1 and 1.0 are equal, the server
// decoding both as the integer 1), others by kind and content. Objects
// and arrays are never equal.
func scalarEqual(a, b jsonv.Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case jsonv.Null:
		return true
	case jsonv.Bool:
		return a.B == b.B
	case jsonv.String:
		return a.Str == b.Str
	case jsonv.Number:
		return numberKey(a.Str) == numberKey(b.Str)
	}
	return false
}

// numberKey canonicalizes a JSON number literal.
func numberKey(s string) string {
	if isIntegral(s) {
		return strings.TrimLeft(strings.TrimPrefix(s, "-"), "0") + sign(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	if f == float64(int64(f)) && f < 9e18 && f > -9e18 {
		return numberKey(strconv.FormatInt(int64(f), 10))
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func sign(s string) string {
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0") != "" {
		return "-"
	}
	return ""
}

// scalarKey is a map key for a primitive value; objects and arrays have
// none (the server cannot hash them either).
func scalarKey(v jsonv.Value) (string, error) {
	switch v.Kind {
	case jsonv.Null:
		return "z", nil
	case jsonv.Bool:
		return "b" + strconv.FormatBool(v.B), nil
	case jsonv.String:
		return "s" + v.Str, nil
	case jsonv.Number:
		return "n" + numberKey(v.Str), nil
	}
	return "", internal("runtime error: hash of unhashable type " + goType(&v))
}
