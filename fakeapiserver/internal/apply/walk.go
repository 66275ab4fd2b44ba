package apply

import (
	"fmt"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// fieldError is a value that does not fit its schema, reported at a path.
type fieldError struct {
	path string
	msg  string
}

func (e *fieldError) Error() string { return pathString(e.path) + ": " + e.msg }

// toFieldSet collects the paths an applied configuration sets: every
// leaf, every item of a set or associative list, every map key, and
// struct fields given as null or {}. When strict, it checks the value
// against the schema where there is one; otherwise it skips what does not
// fit.
func toFieldSet(v jsonv.Value, n node, path string, out fieldSet, strict bool) error {
	if err := checkScalar(v, n, path); err != nil {
		if strict {
			return err
		}
		out.add(path)
		return nil
	}
	switch sh := n.shapeOf(v); sh {
	case leafShape:
		if path != "" {
			out.add(path)
		}
	case setShape, assocShape:
		elem := n.elem()
		for _, item := range v.Arr {
			e, err := itemElem(n, sh, item)
			if err != nil {
				if strict {
					return &fieldError{path: path, msg: err.Error()}
				}
				out.add(path)
				continue
			}
			p := joinPath(path, e)
			if sh == assocShape {
				if err := toFieldSet(item, elem, p, out, strict); err != nil {
					return err
				}
			}
			out.add(p)
		}
	case fieldsShape:
		for _, m := range v.Obj {
			p := joinPath(path, "f:"+m.Key)
			if strict && !n.known(m.Key) {
				return &fieldError{path: p, msg: "field not declared in schema"}
			}
			child, declared := n.field(m.Key)
			if err := toFieldSet(m.Value, child, p, out, strict); err != nil {
				return err
			}
			empty := m.Value.Kind == jsonv.Null || (m.Value.Kind == jsonv.Object && len(m.Value.Obj) == 0)
			if empty || !declared {
				out.add(p)
			}
		}
	}
	return nil
}

// checkScalar refuses a value whose JSON type contradicts a scalar
// schema (null is always allowed).
func checkScalar(v jsonv.Value, n node, path string) error {
	if v.Kind == jsonv.Null {
		return nil
	}
	want := n.scalarType()
	ok := true
	switch want {
	case "string":
		ok = v.Kind == jsonv.String
	case "integer", "number":
		ok = v.Kind == jsonv.Number
	case "boolean":
		ok = v.Kind == jsonv.Bool
	case "array":
		ok = v.Kind == jsonv.Array
	case "object":
		ok = v.Kind == jsonv.Object
	}
	if ok {
		return nil
	}
	switch want {
	case "integer", "number":
		want = "numeric (int or float)"
	case "array":
		want = "list"
	case "object":
		want = "map"
	}
	return &fieldError{path: path, msg: fmt.Sprintf("expected %s, got &value.valueUnstructured{Value:%s}", want, goRepr(v))}
}

// goRepr renders a scalar as Go's %#v renders the decoded value.
func goRepr(v jsonv.Value) string {
	switch v.Kind {
	case jsonv.String:
		return strconv.Quote(v.Str)
	case jsonv.Bool:
		return strconv.FormatBool(v.B)
	case jsonv.Number:
		return canonicalJSON(v)
	case jsonv.Array:
		return "[]interface {}{...}"
	case jsonv.Object:
		return "map[string]interface {}{...}"
	}
	return "<nil>"
}

// comparison holds what changed between two objects, as paths.
type comparison struct {
	added, modified, removed fieldSet
}

func newComparison() *comparison {
	return &comparison{added: fieldSet{}, modified: fieldSet{}, removed: fieldSet{}}
}

// compare walks two versions of a value (nil: absent). Leaves (scalars,
// atomic values) are added, removed or modified; a struct, map or list
// that appears or disappears is added or removed too, after its contents.
func compare(lhs, rhs *jsonv.Value, n node, path string, c *comparison) {
	sh := pairShape(lhs, rhs, n)
	if sh == leafShape {
		switch {
		case lhs == nil && rhs == nil:
		case lhs == nil:
			c.added.add(path)
		case rhs == nil:
			c.removed.add(path)
		case !valueEqual(*lhs, *rhs):
			c.modified.add(path)
		}
		return
	}
	switch sh {
	case fieldsShape:
		l, r := members(lhs), members(rhs)
		for _, m := range l {
			child, _ := n.field(m.Key)
			compare(&m.Value, lookup(r, m.Key), child, joinPath(path, "f:"+m.Key), c)
		}
		for _, m := range r {
			if lookup(l, m.Key) == nil {
				child, _ := n.field(m.Key)
				compare(nil, &m.Value, child, joinPath(path, "f:"+m.Key), c)
			}
		}
	case assocShape, setShape:
		elem := n.elem()
		li, lerr := indexItems(lhs, n, sh)
		ri, rerr := indexItems(rhs, n, sh)
		if lerr != nil || rerr != nil {
			// Items that cannot be identified: compare the list whole.
			if lhs != nil && rhs != nil && !valueEqual(*lhs, *rhs) {
				c.modified.add(path)
			}
			break
		}
		for _, it := range li.items {
			p := joinPath(path, it.elem)
			if li.repeated(it.elem) || ri.repeated(it.elem) {
				// An item whose key repeats is one leaf: its copies
				// together.
				compare(li.group(it.elem), ri.group(it.elem), node{}, p, c)
				continue
			}
			var other *jsonv.Value
			if j, ok := ri.byElem[it.elem]; ok {
				other = &ri.items[j].value
			}
			compare(&it.value, other, elem, p, c)
		}
		for _, it := range ri.items {
			if _, ok := li.byElem[it.elem]; !ok {
				if ri.repeated(it.elem) {
					compare(nil, ri.group(it.elem), node{}, joinPath(path, it.elem), c)
					continue
				}
				compare(nil, &it.value, elem, joinPath(path, it.elem), c)
			}
		}
	}
	if path == "" {
		return
	}
	switch {
	case lhs == nil && rhs != nil:
		c.added.add(path)
	case rhs == nil && lhs != nil:
		c.removed.add(path)
	}
}

// pairShape decides how two versions of a value are compared: as the
// shape they share, a null on one side counting as an empty struct, map
// or list, and as a leaf when their shapes differ.
func pairShape(lhs, rhs *jsonv.Value, n node) shape {
	var ls, rs shape
	var lok, rok bool
	if lhs != nil && lhs.Kind != jsonv.Null {
		ls, lok = n.shapeOf(*lhs), true
	}
	if rhs != nil && rhs.Kind != jsonv.Null {
		rs, rok = n.shapeOf(*rhs), true
	}
	switch {
	case lok && rok:
		if ls != rs {
			return leafShape
		}
		return ls
	case lok:
		return ls
	case rok:
		return rs
	}
	return leafShape
}

func members(v *jsonv.Value) []jsonv.Member {
	if v == nil || v.Kind != jsonv.Object {
		return nil
	}
	return v.Obj
}

func lookup(ms []jsonv.Member, key string) *jsonv.Value {
	for i := range ms {
		if ms[i].Key == key {
			return &ms[i].Value
		}
	}
	return nil
}

// indexedItems is a list's items with their path elements.
type indexedItems struct {
	items  []indexedItem
	byElem map[string]int
	// copies holds, for an element that more than one item has, all
	// of those items in order.
	copies map[string][]jsonv.Value
}

func (x indexedItems) repeated(e string) bool { return len(x.copies[e]) > 1 }

// group returns the items with element e as one array value, nil when
// there is none.
func (x indexedItems) group(e string) *jsonv.Value {
	if c := x.copies[e]; len(c) > 0 {
		return &jsonv.Value{Kind: jsonv.Array, Arr: c}
	}
	if j, ok := x.byElem[e]; ok {
		return &jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{x.items[j].value}}
	}
	return nil
}

type indexedItem struct {
	elem  string
	value jsonv.Value
}

// indexItems identifies the items of a set or associative list. A
// repeated item keeps its first position, and its copies are kept
// together: the real server records such an element as a whole, without
// the fields under it.
func indexItems(v *jsonv.Value, n node, sh shape) (indexedItems, error) {
	out := indexedItems{byElem: map[string]int{}, copies: map[string][]jsonv.Value{}}
	if v == nil || v.Kind != jsonv.Array {
		return out, nil
	}
	for _, item := range v.Arr {
		e, err := itemElem(n, sh, item)
		if err != nil {
			return out, err
		}
		if j, dup := out.byElem[e]; dup {
			if len(out.copies[e]) == 0 {
				out.copies[e] = []jsonv.Value{out.items[j].value}
			}
			out.copies[e] = append(out.copies[e], item)
			continue
		}
		out.byElem[e] = len(out.items)
		out.items = append(out.items, indexedItem{elem: e, value: item})
	}
	return out, nil
}

// valueEqual compares two JSON values: objects regardless of member
// order, numbers by value.
func valueEqual(a, b jsonv.Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case jsonv.Number:
		return canonicalJSON(a) == canonicalJSON(b)
	case jsonv.Array:
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !valueEqual(a.Arr[i], b.Arr[i]) {
				return false
			}
		}
		return true
	case jsonv.Object:
		if len(a.Obj) != len(b.Obj) {
			return false
		}
		for _, m := range a.Obj {
			o := b.Get(m.Key)
			if o == nil || !valueEqual(m.Value, *o) {
				return false
			}
		}
		return true
	}
	return jsonv.Equal(a, b)
}
