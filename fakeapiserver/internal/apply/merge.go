package apply

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// merge lays an applied configuration over the live value: the
// configuration's leaves win; structs and granular maps merge member by
// member; associative lists and sets merge item by item, keeping the
// order of both sides (the configuration's items in its order, the live
// object's other items where they were). A null in the configuration
// becomes the zero value of a typed scalar and removes anything else.
func merge(live, config *jsonv.Value, n node) *jsonv.Value {
	switch {
	case config == nil:
		return live
	case config.Kind == jsonv.Null:
		return nullValue(n)
	case live == nil || live.Kind == jsonv.Null:
		v := dropNulls(*config, n)
		return &v
	}
	sh := pairShape(live, config, n)
	switch sh {
	case fieldsShape:
		out := jsonv.Value{Kind: jsonv.Object, Obj: make([]jsonv.Member, 0, len(live.Obj)+len(config.Obj))}
		for _, m := range live.Obj {
			child, _ := n.field(m.Key)
			v := merge(&m.Value, config.Get(m.Key), child)
			if v != nil {
				out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: *v})
			}
		}
		for _, m := range config.Obj {
			if live.Get(m.Key) != nil {
				continue
			}
			child, _ := n.field(m.Key)
			if v := merge(nil, &m.Value, child); v != nil {
				out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: *v})
			}
		}
		return &out
	case assocShape, setShape:
		merged, ok := mergeItems(live, config, n, sh)
		if ok {
			return merged
		}
	}
	v := dropNulls(*config, n)
	return &v
}

// mergeItems merges two sets or associative lists. The walk keeps each
// side's relative order: live items the configuration does not have stay
// where they were; a shared item is placed where the configuration puts
// it. ok is false when items cannot be identified.
func mergeItems(live, config *jsonv.Value, n node, sh shape) (*jsonv.Value, bool) {
	li, err := indexItems(live, n, sh)
	if err != nil {
		return nil, false
	}
	ri, err := indexItems(config, n, sh)
	if err != nil {
		return nil, false
	}
	elem := n.elem()
	var shared []string
	for _, it := range ri.items {
		if _, ok := li.byElem[it.elem]; ok {
			shared = append(shared, it.elem)
		}
	}
	nextShared := func() string {
		if len(shared) == 0 {
			return ""
		}
		s := shared[0]
		shared = shared[1:]
		return s
	}
	next := nextShared()
	emitted := map[string]bool{}
	out := jsonv.Value{Kind: jsonv.Array, Arr: make([]jsonv.Value, 0, len(li.items)+len(ri.items))}
	emit := func(l, r *jsonv.Value) {
		if v := merge(l, r, elem); v != nil {
			out.Arr = append(out.Arr, *v)
		}
	}
	l, r := 0, 0
	for l < len(li.items) || r < len(ri.items) {
		if l < len(li.items) && r < len(ri.items) {
			le := li.items[l].elem
			if le == ri.items[r].elem {
				emitted[le] = true
				emit(&li.items[l].value, &ri.items[r].value)
				l++
				r++
				next = nextShared()
				continue
			}
			if _, inConfig := ri.byElem[le]; inConfig && next != "" && next != le {
				// A shared item the configuration places later.
				l++
				continue
			}
		}
		if l < len(li.items) {
			le := li.items[l].elem
			if _, inConfig := ri.byElem[le]; !inConfig {
				emit(&li.items[l].value, nil)
				l++
				continue
			}
			if emitted[le] {
				l++
				continue
			}
		}
		if r < len(ri.items) {
			re := ri.items[r].elem
			emitted[re] = true
			var lv *jsonv.Value
			if j, ok := li.byElem[re]; ok {
				lv = &li.items[j].value
			}
			emit(lv, &ri.items[r].value)
			r++
			if next == re {
				next = nextShared()
			}
		}
	}
	return &out, true
}

// nullValue is what a null in an applied configuration leaves: the zero
// value of a typed scalar (as decoding into the kind's Go type gives),
// nothing otherwise.
func nullValue(n node) *jsonv.Value {
	var v jsonv.Value
	switch n.scalarType() {
	case "string":
		v = jsonv.NewString("")
	case "integer", "number":
		v = jsonv.Value{Kind: jsonv.Number, Str: "0"}
	case "boolean":
		v = jsonv.Value{Kind: jsonv.Bool}
	default:
		return nil
	}
	return &v
}

// dropNulls applies nullValue to the members of a configuration value
// taken whole.
func dropNulls(v jsonv.Value, n node) jsonv.Value {
	switch v.Kind {
	case jsonv.Object:
		out := jsonv.Value{Kind: jsonv.Object, Obj: make([]jsonv.Member, 0, len(v.Obj))}
		for _, m := range v.Obj {
			child, _ := n.field(m.Key)
			if m.Value.Kind == jsonv.Null {
				if z := nullValue(child); z != nil {
					out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: *z})
				}
				continue
			}
			out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: dropNulls(m.Value, child)})
		}
		return out
	case jsonv.Array:
		elem := n.elem()
		out := jsonv.Value{Kind: jsonv.Array, Arr: make([]jsonv.Value, 0, len(v.Arr))}
		for _, item := range v.Arr {
			out.Arr = append(out.Arr, dropNulls(item, elem))
		}
		return out
	}
	return v
}

// remove deletes the paths in drop (relative to v) from v: struct
// fields, map keys and list items, with everything below them. A struct,
// map or list that removal leaves empty is removed too, as the kind's Go
// type would omit it; the root is never removed.
func remove(v jsonv.Value, n node, drop fieldSet, path string) (jsonv.Value, bool) {
	switch sh := n.shapeOf(v); sh {
	case fieldsShape:
		out := jsonv.Value{Kind: jsonv.Object, Obj: make([]jsonv.Member, 0, len(v.Obj))}
		changed := false
		for _, m := range v.Obj {
			p := joinPath(path, "f:"+m.Key)
			if drop.has(p) {
				changed = true
				continue
			}
			val := m.Value
			if drop.hasUnder(p) {
				child, _ := n.field(m.Key)
				nv, emptied := remove(val, child, drop, p)
				changed = true
				if emptied {
					continue
				}
				val = nv
			}
			out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: val})
		}
		return out, changed && len(out.Obj) == 0 && path != ""
	case assocShape, setShape:
		out := jsonv.Value{Kind: jsonv.Array, Arr: make([]jsonv.Value, 0, len(v.Arr))}
		elem := n.elem()
		changed := false
		for _, item := range v.Arr {
			e, err := itemElem(n, sh, item)
			if err != nil {
				out.Arr = append(out.Arr, item)
				continue
			}
			p := joinPath(path, e)
			if drop.has(p) {
				changed = true
				continue
			}
			if drop.hasUnder(p) {
				nv, _ := remove(item, elem, drop, p)
				item = nv
				changed = true
			}
			out.Arr = append(out.Arr, item)
		}
		return out, changed && len(out.Arr) == 0 && path != ""
	}
	return v, false
}

// Merge lays config over live as an apply merges them, without
// ownership: what a mutating admission policy's ApplyConfiguration does
// to the object of a request.
func Merge(live, config jsonv.Value, t Type) jsonv.Value {
	if out := merge(&live, &config, t.rootNode()); out != nil {
		return *out
	}
	return jsonv.Value{Kind: jsonv.Null}
}
