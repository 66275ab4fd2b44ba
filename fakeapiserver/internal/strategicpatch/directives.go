package strategicpatch

import (
	"fmt"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// retainKeys applies a $retainKeys directive found among the patch's
// members: the original keeps only the listed keys, and every key the
// patch sets must be listed. It returns the members left to merge.
func retainKeys(out *jsonv.Value, rest []jsonv.Member) ([]jsonv.Member, error) {
	idx := -1
	for i := range rest {
		if rest[i].Key == retainKeysDirective {
			idx = i
		}
	}
	if idx < 0 {
		return rest, nil
	}
	list := rest[idx].Value
	rest = append(rest[:idx:idx], rest[idx+1:]...)
	if list.Kind != jsonv.Array {
		return nil, errRetainKeysFormat
	}
	keep := map[string]bool{}
	for _, v := range list.Arr {
		if v.Kind == jsonv.String {
			keep[v.Str] = true
		}
	}
	for _, m := range rest {
		if m.Value.Kind == jsonv.Null || strings.HasPrefix(m.Key, deleteFromPrimitiveListPrefix) || strings.HasPrefix(m.Key, setElementOrderPrefix) {
			continue
		}
		if !keep[m.Key] {
			return nil, errRetainKeysFormat
		}
	}
	kept := out.Obj[:0:0]
	for _, m := range out.Obj {
		if keep[m.Key] {
			kept = append(kept, m)
		}
	}
	out.Obj = kept
	return rest, nil
}

// setElementOrders applies every $setElementOrder/<field> directive: the
// field's list is merged with the patch's list for it (if any) and put in
// the order the directive gives, the original's other items interleaved.
// It returns the members left to merge (neither the directives nor the
// lists they ordered).
func (m *merger) setElementOrders(out *jsonv.Value, rest []jsonv.Member, path []string) ([]jsonv.Member, error) {
	var orders []jsonv.Member
	kept := rest[:0:0]
	for _, mem := range rest {
		if strings.HasPrefix(mem.Key, setElementOrderPrefix) {
			orders = append(orders, mem)
		} else {
			kept = append(kept, mem)
		}
	}
	rest = kept
	for _, dir := range orders {
		if dir.Value.Kind != jsonv.Array {
			return nil, errBadArgType("[]interface {}", &dir.Value)
		}
		order := dir.Value.Arr
		field, ok := directiveField(dir.Key, setElementOrderPrefix)
		if !ok {
			return nil, errSetElementOrderFormat
		}
		var origList, patchList []jsonv.Value
		orig := out.Get(field)
		if orig != nil {
			if orig.Kind != jsonv.Array {
				return nil, errBadArgType("[]interface {}", orig)
			}
			origList = orig.Arr
		}
		pi := -1
		for i := range rest {
			if rest[i].Key == field {
				pi = i
			}
		}
		if pi >= 0 {
			if rest[pi].Value.Kind != jsonv.Array {
				return nil, errBadArgType("[]interface {}", &rest[pi].Value)
			}
			patchList = rest[pi].Value.Arr
		}
		meta := m.lookup(path, field)
		if err := validateSetOrder(patchList, order, meta.MergeKey); err != nil {
			return nil, err
		}
		var merged []jsonv.Value
		switch {
		case orig != nil && pi < 0:
			merged = origList
		case orig == nil && pi >= 0:
			merged = patchList
		case orig != nil && pi >= 0:
			var err error
			merged, err = m.mergeListField(origList, patchList, meta, false, appendPath(path, field))
			if err != nil {
				return nil, err
			}
		default:
			continue
		}
		var inOrder, others []jsonv.Value
		var err error
		if meta.MergeKey == "" {
			inOrder, others, err = partitionPrimitives(merged, order)
		} else {
			inOrder, others, err = partitionMaps(merged, order, meta.MergeKey)
		}
		if err != nil {
			return nil, err
		}
		kind, err := elementKind(origList, patchList)
		if err != nil {
			return nil, err
		}
		both, err := normalizeElementOrder(inOrder, others, order, origList, meta.MergeKey, kind)
		if err != nil {
			return nil, err
		}
		for i := range both {
			both[i] = replacedValue(both[i])
		}
		out.Set(field, jsonv.Value{Kind: jsonv.Array, Arr: both})
		if pi >= 0 {
			rest = append(rest[:pi:pi], rest[pi+1:]...)
		}
	}
	return rest, nil
}

// validateSetOrder checks that the patch's list names its items in an
// order consistent with $setElementOrder (deletions aside).
func validateSetOrder(patchList, order []jsonv.Value, mergeKey string) error {
	if len(order) == 0 || len(patchList) == 0 {
		return nil
	}
	items := patchList
	if mergeKey != "" {
		var err error
		items, _, err = splitDeletions(patchList)
		if err != nil {
			return err
		}
	}
	pi, oi := 0, 0
	for pi < len(items) && oi < len(order) {
		if items[pi].Kind == jsonv.Object && items[pi].Get(directiveMarker) != nil {
			pi++
			continue
		}
		eq, err := mergeKeyEqual(items[pi], order[oi], mergeKey)
		if err != nil {
			return err
		}
		if eq {
			pi++
		}
		oi++
	}
	if pi < len(items) && oi >= len(order) {
		return internal(fmt.Sprintf("The order in patch list:\n%s\n doesn't match %s list:\n%s\n",
			goFormat(jsonv.Value{Kind: jsonv.Array, Arr: patchList}), setElementOrderPrefix, goFormat(jsonv.Value{Kind: jsonv.Array, Arr: order})))
	}
	return nil
}

func mergeKeyEqual(a, b jsonv.Value, mergeKey string) (bool, error) {
	if mergeKey == "" {
		if a.Kind == jsonv.Object || a.Kind == jsonv.Array || b.Kind == jsonv.Object || b.Kind == jsonv.Array {
			return false, internal("runtime error: comparing uncomparable type " + goType(&a))
		}
		return scalarEqual(a, b), nil
	}
	if a.Kind != jsonv.Object {
		return false, errBadArgType("map[string]interface {}", &a)
	}
	if b.Kind != jsonv.Object {
		return false, errBadArgType("map[string]interface {}", &b)
	}
	ka, kb := a.Get(mergeKey), b.Get(mergeKey)
	if ka == nil {
		return false, errNoMergeKey(a, mergeKey)
	}
	if kb == nil {
		return false, errNoMergeKey(b, mergeKey)
	}
	return scalarEqual(*ka, *kb), nil
}

// newValue prepares a patch value the original has no counterpart for:
// nulls are dropped and objects carrying $patch disappear (a missing
// field, or a list item that is not kept), as on the server. It returns
// nil when v itself disappears.
func newValue(v jsonv.Value) *jsonv.Value {
	switch v.Kind {
	case jsonv.Object:
		if v.Get(directiveMarker) != nil {
			return nil
		}
		out := jsonv.Value{Kind: jsonv.Object, Obj: make([]jsonv.Member, 0, len(v.Obj))}
		for _, m := range v.Obj {
			if m.Value.Kind == jsonv.Null || isDirectiveKey(m.Key) {
				continue
			}
			if nv := newValue(m.Value); nv != nil {
				out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: *nv})
			}
		}
		return &out
	case jsonv.Array:
		out := jsonv.Value{Kind: jsonv.Array, Arr: make([]jsonv.Value, 0, len(v.Arr))}
		for _, item := range v.Arr {
			if nv := newValue(item); nv != nil {
				out.Arr = append(out.Arr, *nv)
			}
		}
		return &out
	}
	return &v
}

// replacedValue prepares a patch value that replaces the original's
// whole: its directive keys and nulls are dropped, as decoding into the
// kind's Go type drops them on the server.
func replacedValue(v jsonv.Value) jsonv.Value {
	return jsonv.Pruned(v, func(key string, pruned jsonv.Value) bool {
		return pruned.Kind == jsonv.Null || isDirectiveKey(key)
	})
}

func isDirectiveKey(k string) bool {
	return k == directiveMarker || k == retainKeysDirective ||
		strings.HasPrefix(k, setElementOrderPrefix) || strings.HasPrefix(k, deleteFromPrimitiveListPrefix)
}
