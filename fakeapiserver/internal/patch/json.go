package patch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// ErrTestFailed is wrapped by the error of a JSON patch whose test
// operation did not hold.
var ErrTestFailed = errors.New("test failed")

// MaxOperations is the most operations one JSON patch may hold, as on the
// real server.
const MaxOperations = 10000

// TooManyOperationsError reports a JSON patch longer than MaxOperations
// (the server answers 413).
type TooManyOperationsError struct{ N int }

// Error names the limit and the count.
func (e *TooManyOperationsError) Error() string {
	return fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", MaxOperations, e.N)
}

// MaxCopyBytes bounds how much the copy operations of one JSON patch may
// add to the document, counted in encoded JSON bytes: 3 MiB, the real
// server's default (--json-patch-max-copy-bytes, twice etcd's 1.5 MiB
// request limit). Without it, 18 copies that each double the document
// reach gigabytes.
const MaxCopyBytes = 3 << 20

// CopyLimitError reports a JSON patch whose copies passed MaxCopyBytes (the
// server answers 422 with this message, as the real one does).
type CopyLimitError struct{ Accumulated int64 }

// Error gives the real server's words.
func (e *CopyLimitError) Error() string {
	return fmt.Sprintf("Unable to complete the copy, the accumulated size increase of copy is %d, exceeding the limit %d", e.Accumulated, MaxCopyBytes)
}

type operation struct {
	op, path, from string
	value          *jsonv.Value
	index          int
}

// JSON applies an RFC 6902 JSON patch to target and returns the result;
// target is not modified. Operations apply in order and the first failure
// stops the patch.
func JSON(target []byte, patchDoc []byte) (jsonv.Value, error) {
	ops, err := decodeJSONPatch(patchDoc)
	if err != nil {
		return jsonv.Value{}, err
	}
	tv, err := jsonv.Parse(target)
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("json patch target: %w", err)
	}
	doc := tv.Value
	var copied int64
	for _, op := range ops {
		if doc, err = op.apply(doc, &copied); err != nil {
			var cl *CopyLimitError
			if errors.As(err, &cl) {
				return jsonv.Value{}, &ApplyError{Msg: cl.Error()}
			}
			return jsonv.Value{}, &ApplyError{Msg: fmt.Sprintf("operation %d (%s %q): %s", op.index, op.op, op.path, err), Err: err}
		}
	}
	return doc, nil
}

func decodeJSONPatch(data []byte) ([]operation, error) {
	pv, err := jsonv.Parse(data)
	if err != nil {
		return nil, &DecodeError{Msg: "invalid JSON patch"}
	}
	if pv.Value.Kind != jsonv.Array {
		return nil, &DecodeError{Msg: fmt.Sprintf("error decoding patch: json: cannot unmarshal %s into Go value of type []handlers.jsonPatchOp", goKind(pv.Value.Kind))}
	}
	if n := len(pv.Value.Arr); n > MaxOperations {
		return nil, &TooManyOperationsError{N: n}
	}
	ops := make([]operation, 0, len(pv.Value.Arr))
	for i, el := range pv.Value.Arr {
		if el.Kind != jsonv.Object {
			return nil, &DecodeError{Msg: fmt.Sprintf("invalid JSON patch: operation %d is a %v, not an object", i, el.Kind)}
		}
		op := operation{index: i}
		for _, m := range el.Obj {
			switch m.Key {
			case "op", "path", "from":
				if m.Value.Kind != jsonv.String {
					return nil, &DecodeError{Msg: fmt.Sprintf("invalid JSON patch: operation %d: %q must be a string", i, m.Key)}
				}
				switch m.Key {
				case "op":
					op.op = m.Value.Str
				case "path":
					op.path = m.Value.Str
				case "from":
					op.from = m.Value.Str
				}
			case "value":
				v := m.Value
				op.value = &v
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// apply applies one operation to doc; copied accumulates the encoded size
// of what copy operations added, against MaxCopyBytes.
func (op operation) apply(doc jsonv.Value, copied *int64) (jsonv.Value, error) {
	path, err := parsePointer(op.path)
	if err != nil {
		return doc, err
	}
	needValue := func() error {
		if op.value == nil {
			return fmt.Errorf("missing value")
		}
		return nil
	}
	switch op.op {
	case "add":
		if err := needValue(); err != nil {
			return doc, err
		}
		return add(doc, path, op.value.Clone())
	case "remove":
		doc, _, err := remove(doc, path)
		return doc, err
	case "replace":
		if err := needValue(); err != nil {
			return doc, err
		}
		if _, err := get(&doc, path); err != nil {
			return doc, err
		}
		return set(doc, path, op.value.Clone())
	case "move", "copy":
		from, err := parsePointer(op.from)
		if err != nil {
			return doc, fmt.Errorf("from: %w", err)
		}
		if op.op == "move" {
			if isProperPrefix(from, path) {
				return doc, fmt.Errorf("cannot move %q into its own child %q", op.from, op.path)
			}
			var v jsonv.Value
			if doc, v, err = remove(doc, from); err != nil {
				return doc, fmt.Errorf("from: %w", err)
			}
			return add(doc, path, v)
		}
		v, err := get(&doc, from)
		if err != nil {
			return doc, fmt.Errorf("from: %w", err)
		}
		if *copied += jsonv.EncodedSize(*v); *copied > MaxCopyBytes {
			return doc, &CopyLimitError{Accumulated: *copied}
		}
		return add(doc, path, v.Clone())
	case "test":
		if err := needValue(); err != nil {
			return doc, err
		}
		v, err := get(&doc, path)
		if err != nil {
			return doc, err
		}
		if !jsonv.Equal(*v, *op.value) {
			return doc, fmt.Errorf("%w: value differs", ErrTestFailed)
		}
		return doc, nil
	case "":
		return doc, fmt.Errorf("missing op")
	default:
		return doc, fmt.Errorf("unknown op")
	}
}

// parsePointer splits an RFC 6901 JSON pointer into unescaped tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("path %q does not start with '/'", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		if strings.Contains(s, "~") {
			for j := 0; j < len(s); j++ {
				if s[j] == '~' && (j+1 == len(s) || (s[j+1] != '0' && s[j+1] != '1')) {
					return nil, fmt.Errorf("path %q has an invalid ~ escape", p)
				}
			}
			s = strings.ReplaceAll(s, "~1", "/")
			s = strings.ReplaceAll(s, "~0", "~")
			parts[i] = s
		}
	}
	return parts, nil
}

func isProperPrefix(a, b []string) bool {
	if len(a) >= len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// arrayIndex parses an array index token; "-" means one past the end and is
// allowed only when allowEnd is set.
func arrayIndex(tok string, n int, allowEnd bool) (int, error) {
	if tok == "-" && allowEnd {
		return n, nil
	}
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("invalid array index %q", tok)
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("invalid array index %q", tok)
	}
	limit := n - 1
	if allowEnd {
		limit = n
	}
	if i > limit {
		return 0, fmt.Errorf("array index %d out of range (length %d)", i, n)
	}
	return i, nil
}

// get returns a pointer to the value at path inside doc.
func get(doc *jsonv.Value, path []string) (*jsonv.Value, error) {
	cur := doc
	for depth, tok := range path {
		switch cur.Kind {
		case jsonv.Object:
			next := cur.Get(tok)
			if next == nil {
				return nil, fmt.Errorf("path /%s does not exist", strings.Join(path[:depth+1], "/"))
			}
			cur = next
		case jsonv.Array:
			i, err := arrayIndex(tok, len(cur.Arr), false)
			if err != nil {
				return nil, err
			}
			cur = &cur.Arr[i]
		default:
			return nil, fmt.Errorf("path /%s: cannot descend into a %v", strings.Join(path[:depth+1], "/"), cur.Kind)
		}
	}
	return cur, nil
}

// The operations below edit the document in place: JSON parses a private
// copy of the target, and a failed operation fails the whole patch.

func add(doc jsonv.Value, path []string, v jsonv.Value) (jsonv.Value, error) {
	if len(path) == 0 {
		return v, nil
	}
	parent, err := get(&doc, path[:len(path)-1])
	if err != nil {
		return doc, err
	}
	last := path[len(path)-1]
	switch parent.Kind {
	case jsonv.Object:
		parent.Set(last, v)
	case jsonv.Array:
		i, err := arrayIndex(last, len(parent.Arr), true)
		if err != nil {
			return doc, err
		}
		parent.Arr = append(parent.Arr[:i:i], append([]jsonv.Value{v}, parent.Arr[i:]...)...)
	default:
		return doc, fmt.Errorf("cannot add a member to a %v", parent.Kind)
	}
	return doc, nil
}

func set(doc jsonv.Value, path []string, v jsonv.Value) (jsonv.Value, error) {
	if len(path) == 0 {
		return v, nil
	}
	target, err := get(&doc, path)
	if err != nil {
		return doc, err
	}
	*target = v
	return doc, nil
}

func remove(doc jsonv.Value, path []string) (jsonv.Value, jsonv.Value, error) {
	if len(path) == 0 {
		return doc, jsonv.Value{}, fmt.Errorf("cannot remove the whole document")
	}
	parent, err := get(&doc, path[:len(path)-1])
	if err != nil {
		return doc, jsonv.Value{}, err
	}
	last := path[len(path)-1]
	switch parent.Kind {
	case jsonv.Object:
		v := parent.Get(last)
		if v == nil {
			return doc, jsonv.Value{}, fmt.Errorf("path %s does not exist", "/"+strings.Join(path, "/"))
		}
		removed := *v
		parent.Delete(last)
		return doc, removed, nil
	case jsonv.Array:
		i, err := arrayIndex(last, len(parent.Arr), false)
		if err != nil {
			return doc, jsonv.Value{}, err
		}
		removed := parent.Arr[i]
		parent.Arr = append(parent.Arr[:i:i], parent.Arr[i+1:]...)
		return doc, removed, nil
	default:
		return doc, jsonv.Value{}, fmt.Errorf("cannot remove a member of a %v", parent.Kind)
	}
}
