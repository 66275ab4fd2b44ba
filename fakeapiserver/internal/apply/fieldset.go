package apply

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// A path names one field of an object as managedFields do: a list of
// elements, each "f:<field>" (a struct field or map key), "k:{...}" (the
// item of an associative list with these key values), "v:<json>" (the item
// of a set) or "i:<n>" (a list item by position). Paths are stored joined
// by pathSep, so a set of paths is a plain map.
const pathSep = "\x00"

// fieldSet is a set of paths (managedFields' FieldsV1, flattened).
type fieldSet map[string]struct{}

func joinPath(parent, elem string) string {
	if parent == "" {
		return elem
	}
	return parent + pathSep + elem
}

func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, pathSep)
}

func (s fieldSet) add(p string) { s[p] = struct{}{} }

func (s fieldSet) has(p string) bool {
	_, ok := s[p]
	return ok
}

// hasUnder reports whether s holds p or a path below it.
func (s fieldSet) hasUnder(p string) bool {
	if s.has(p) {
		return true
	}
	prefix := p + pathSep
	for q := range s {
		if strings.HasPrefix(q, prefix) {
			return true
		}
	}
	return false
}

func (s fieldSet) clone() fieldSet {
	out := make(fieldSet, len(s))
	for p := range s {
		out[p] = struct{}{}
	}
	return out
}

func (s fieldSet) union(o fieldSet) fieldSet {
	out := s.clone()
	for p := range o {
		out[p] = struct{}{}
	}
	return out
}

func (s fieldSet) minus(o fieldSet) fieldSet {
	out := make(fieldSet, len(s))
	for p := range s {
		if !o.has(p) {
			out[p] = struct{}{}
		}
	}
	return out
}

func (s fieldSet) intersect(o fieldSet) fieldSet {
	out := fieldSet{}
	for p := range s {
		if o.has(p) {
			out[p] = struct{}{}
		}
	}
	return out
}

// filter keeps the paths keep accepts.
func (s fieldSet) filter(keep func(string) bool) fieldSet {
	out := make(fieldSet, len(s))
	for p := range s {
		if keep(p) {
			out[p] = struct{}{}
		}
	}
	return out
}

// sorted returns the paths in the order managedFields and conflict
// messages list them.
func (s fieldSet) sorted() []string {
	out := make([]string, 0, len(s))
	for p := range s {
		out = append(out, p)
	}
	slices.SortFunc(out, comparePaths)
	return out
}

func comparePaths(a, b string) int {
	ea, eb := splitPath(a), splitPath(b)
	for i := 0; i < len(ea) && i < len(eb); i++ {
		if c := compareElems(ea[i], eb[i]); c != 0 {
			return c
		}
	}
	return len(ea) - len(eb)
}

// compareElems orders path elements: fields by name, then keyed items by
// their key values, then set values, then indexes.
func compareElems(a, b string) int {
	ra, rb := elemRank(a), elemRank(b)
	if ra != rb {
		return ra - rb
	}
	switch a[0] {
	case 'f':
		return strings.Compare(a, b)
	case 'i':
		x, _ := strconv.Atoi(a[2:])
		y, _ := strconv.Atoi(b[2:])
		return x - y
	}
	va, errA := jsonv.Parse([]byte(a[2:]))
	vb, errB := jsonv.Parse([]byte(b[2:]))
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	return compareValues(va.Value, vb.Value)
}

func elemRank(e string) int {
	switch {
	case strings.HasPrefix(e, "f:"):
		return 0
	case strings.HasPrefix(e, "k:"):
		return 1
	case strings.HasPrefix(e, "v:"):
		return 2
	case strings.HasPrefix(e, "i:"):
		return 3
	}
	return 4
}

// compareValues orders JSON values as the server orders key values: by
// type (null, boolean, number, string, list, object), then by value;
// objects compare their members by sorted name.
func compareValues(a, b jsonv.Value) int {
	rank := func(v jsonv.Value) int {
		switch v.Kind {
		case jsonv.Null:
			return 0
		case jsonv.Bool:
			return 1
		case jsonv.Number:
			return 2
		case jsonv.String:
			return 3
		case jsonv.Array:
			return 4
		}
		return 5
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch a.Kind {
	case jsonv.Bool:
		switch {
		case a.B == b.B:
			return 0
		case !a.B:
			return -1
		}
		return 1
	case jsonv.Number:
		x, _ := strconv.ParseFloat(a.Str, 64)
		y, _ := strconv.ParseFloat(b.Str, 64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case jsonv.String:
		return strings.Compare(a.Str, b.Str)
	case jsonv.Array:
		for i := 0; i < len(a.Arr) && i < len(b.Arr); i++ {
			if c := compareValues(a.Arr[i], b.Arr[i]); c != 0 {
				return c
			}
		}
		return len(a.Arr) - len(b.Arr)
	case jsonv.Object:
		ma, mb := sortedMembers(a), sortedMembers(b)
		for i := 0; i < len(ma) && i < len(mb); i++ {
			if c := strings.Compare(ma[i].Key, mb[i].Key); c != 0 {
				return c
			}
			if c := compareValues(ma[i].Value, mb[i].Value); c != 0 {
				return c
			}
		}
		return len(ma) - len(mb)
	}
	return 0
}

func sortedMembers(v jsonv.Value) []jsonv.Member {
	m := slices.Clone(v.Obj)
	slices.SortFunc(m, func(x, y jsonv.Member) int { return strings.Compare(x.Key, y.Key) })
	return m
}

// canonicalJSON encodes v compactly with object members sorted by name
// and integral numbers as integers, the form key values take in paths.
func canonicalJSON(v jsonv.Value) string {
	return string(appendCanonical(nil, v))
}

func appendCanonical(buf []byte, v jsonv.Value) []byte {
	switch v.Kind {
	case jsonv.Number:
		if f, err := strconv.ParseFloat(v.Str, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.AppendInt(buf, int64(f), 10)
		}
		return append(buf, v.Str...)
	case jsonv.Array:
		buf = append(buf, '[')
		for i := range v.Arr {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendCanonical(buf, v.Arr[i])
		}
		return append(buf, ']')
	case jsonv.Object:
		buf = append(buf, '{')
		for i, m := range sortedMembers(v) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = jsonv.AppendString(buf, m.Key)
			buf = append(buf, ':')
			buf = appendCanonical(buf, m.Value)
		}
		return append(buf, '}')
	}
	return jsonv.Append(buf, v)
}

// itemElem returns the path element of a list item: "k:{...}" for an
// associative list (a missing key field takes its schema default, or is
// left out of the key when it has none, as structured-merge-diff v6
// does; an item without any key field is an error), "v:..." for a set.
func itemElem(list node, sh shape, item jsonv.Value) (string, error) {
	if sh == setShape {
		return "v:" + canonicalJSON(item), nil
	}
	if item.Kind != jsonv.Object {
		return "", fmt.Errorf("associative list with keys has an element that is not a map (%s)", jsonv.Marshal(item))
	}
	keys := list.keys()
	if len(keys) == 0 {
		return "", fmt.Errorf("associative list without keys has an element")
	}
	elem := list.elem()
	key := jsonv.NewObject()
	for _, k := range keys {
		v := item.Get(k)
		if v == nil || v.Kind == jsonv.Null {
			f, _ := elem.field(k)
			if f.s == nil || f.s.Default == "" {
				continue
			}
			d, err := jsonv.Parse([]byte(f.s.Default))
			if err != nil {
				return "", fmt.Errorf("default of key field %q: %w", k, err)
			}
			v = &d.Value
		}
		key.Set(k, *v)
	}
	if len(key.Obj) == 0 {
		return "", fmt.Errorf("associative list with keys has an element that omits all key fields %q (and doesn't have default values for any key fields)", keys)
	}
	return "k:" + canonicalJSON(key), nil
}

// encodeFieldsV1 renders a set as the nested FieldsV1 object: each path
// element is a key; a path that is in the set and has paths below it
// carries ".", one without paths below is {}.
func encodeFieldsV1(s fieldSet) json.RawMessage {
	type tree struct {
		member   bool
		children map[string]*tree
	}
	root := &tree{children: map[string]*tree{}}
	for p := range s {
		t := root
		for _, e := range splitPath(p) {
			c := t.children[e]
			if c == nil {
				c = &tree{children: map[string]*tree{}}
				t.children[e] = c
			}
			t = c
		}
		t.member = true
	}
	var enc func(buf []byte, t *tree) []byte
	enc = func(buf []byte, t *tree) []byte {
		buf = append(buf, '{')
		first := true
		if t.member && len(t.children) > 0 {
			buf = append(buf, `".":{}`...)
			first = false
		}
		keys := make([]string, 0, len(t.children))
		for k := range t.children {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareElems)
		for _, k := range keys {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = jsonv.AppendString(buf, k)
			buf = append(buf, ':')
			buf = enc(buf, t.children[k])
		}
		return append(buf, '}')
	}
	return enc(nil, root)
}

// decodeFieldsV1 reads a FieldsV1 object into a set.
func decodeFieldsV1(raw json.RawMessage) (fieldSet, error) {
	res, err := jsonv.Parse(raw)
	if err != nil {
		return nil, err
	}
	if res.Value.Kind != jsonv.Object {
		return nil, fmt.Errorf("fieldsV1 is not an object")
	}
	out := fieldSet{}
	var walk func(v jsonv.Value, prefix string) error
	walk = func(v jsonv.Value, prefix string) error {
		for _, m := range v.Obj {
			if m.Key == "." {
				if prefix != "" {
					out.add(prefix)
				}
				continue
			}
			if !validElem(m.Key) {
				return fmt.Errorf("invalid path element %q", m.Key)
			}
			if m.Value.Kind != jsonv.Object {
				return fmt.Errorf("value of %q is not an object", m.Key)
			}
			p := joinPath(prefix, m.Key)
			if len(m.Value.Obj) == 0 {
				out.add(p)
				continue
			}
			if err := walk(m.Value, p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(res.Value, ""); err != nil {
		return nil, err
	}
	return out, nil
}

func validElem(e string) bool {
	if len(e) < 2 || e[1] != ':' {
		return false
	}
	switch e[0] {
	case 'f':
		return true
	case 'k', 'v':
		_, err := jsonv.Parse([]byte(e[2:]))
		return err == nil
	case 'i':
		_, err := strconv.Atoi(e[2:])
		return err == nil
	}
	return false
}

// pathString renders a path as the server prints it in conflicts:
// .spec.containers[name="a"].image, .metadata.finalizers[="x"].
func pathString(p string) string {
	var b strings.Builder
	for _, e := range splitPath(p) {
		switch e[0] {
		case 'f':
			b.WriteString("." + e[2:])
		case 'k':
			b.WriteByte('[')
			if res, err := jsonv.Parse([]byte(e[2:])); err == nil {
				for i, m := range sortedMembers(res.Value) {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteString(m.Key + "=" + canonicalJSON(m.Value))
				}
			}
			b.WriteByte(']')
		case 'v':
			b.WriteString("[=" + e[2:] + "]")
		case 'i':
			b.WriteString("[" + e[2:] + "]")
		}
	}
	return b.String()
}
