package strategicpatch

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The directives a strategic merge patch may carry.
const (
	// directiveMarker ($patch) in an object: replace (the object replaces
	// the original's), delete (the object becomes empty; in a list, the
	// item with the same merge key is removed), merge (refused).
	directiveMarker = "$patch"
	// retainKeysDirective lists the only keys the merged object keeps.
	retainKeysDirective = "$retainKeys"
	// setElementOrderPrefix + "/field" gives the order of the list field.
	setElementOrderPrefix = "$setElementOrder"
	// deleteFromPrimitiveListPrefix + "/field" lists values to remove from
	// a merged list of primitives.
	deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList"
)

// Apply applies a strategic merge patch (the body of a PATCH with
// Content-Type application/strategic-merge-patch+json) to original and
// returns the patched document, compact. schema says how each list merges
// (nil means NoSchema). Neither input is modified.
//
// It does what the API server does: maps merge key by key and null
// deletes a key; lists merge by the field's strategy (by merge key, as a
// set of primitives, or replaced whole); the directives $patch,
// $retainKeys, $setElementOrder/<field> and
// $deleteFromPrimitiveList/<field> apply; items keep the server's order
// (the patch's items, then the original's others interleaved by their
// original order). Directive keys and nulls never reach the result. A
// patch that cannot apply gives an *Error carrying the status the real
// server answers with; a malformed original gives a plain error.
func Apply(original, patch []byte, schema Schema) ([]byte, error) {
	ov, err := jsonv.Parse(original)
	if err != nil {
		return nil, fmt.Errorf("strategic merge patch: original document: %w", err)
	}
	pv, err := jsonv.Parse(patch)
	if err != nil {
		return nil, badRequest("invalid JSON document: " + err.Error())
	}
	out, err := ApplyValue(ov.Value, pv.Value, schema)
	if err != nil {
		return nil, err
	}
	return jsonv.Marshal(out), nil
}

// ApplyValue is Apply over parsed documents. The result may share
// structure with original and patch: do not modify them afterwards.
func ApplyValue(original, patch jsonv.Value, schema Schema) (jsonv.Value, error) {
	if schema == nil {
		schema = NoSchema
	}
	switch patch.Kind {
	case jsonv.Null:
		return original, nil
	case jsonv.Object:
	default:
		return jsonv.Value{}, badRequest("json: cannot unmarshal " + jsonKindName(patch.Kind) + " into Go value of type map[string]interface {}")
	}
	m := merger{schema: schema}
	return m.mergeMap(original, canonicalNumbers(patch), nil)
}

func jsonKindName(k jsonv.Kind) string {
	if k == jsonv.Bool {
		return "bool"
	}
	return k.String()
}

type merger struct {
	schema Schema
}

func (m *merger) lookup(path []string, field string) PatchMeta {
	return m.schema.Lookup(appendPath(path, field))
}

// appendPath returns path + field without sharing path's spare capacity.
func appendPath(path []string, field string) []string {
	out := make([]string, len(path)+1)
	copy(out, path)
	out[len(path)] = field
	return out
}

// mergeMap merges the object patch into orig (an object, or anything
// else, which counts as empty).
func (m *merger) mergeMap(orig, patch jsonv.Value, path []string) (jsonv.Value, error) {
	if d := patch.Get(directiveMarker); d != nil {
		return mapDirective(*d, patch)
	}
	out := jsonv.Value{Kind: jsonv.Object, Obj: []jsonv.Member{}}
	if orig.Kind == jsonv.Object {
		out.Obj = append(out.Obj, orig.Obj...)
	}
	rest := append([]jsonv.Member(nil), patch.Obj...)

	rest, err := retainKeys(&out, rest)
	if err != nil {
		return jsonv.Value{}, err
	}
	rest, err = m.setElementOrders(&out, rest, path)
	if err != nil {
		return jsonv.Value{}, err
	}
	for _, pm := range rest {
		key, pv := pm.Key, pm.Value
		deleteList := false
		if strings.HasPrefix(key, deleteFromPrimitiveListPrefix) {
			field, ok := directiveField(key, deleteFromPrimitiveListPrefix)
			if !ok {
				return jsonv.Value{}, errPrimitiveListFormat
			}
			key, deleteList = field, true
		}
		if pv.Kind == jsonv.Null {
			out.Delete(key)
			continue
		}
		cur := out.Get(key)
		if cur == nil || !sameGoType(*cur, pv) {
			if !deleteList {
				setOrDelete(&out, key, newValue(pv))
			}
			continue
		}
		switch cur.Kind {
		case jsonv.Object:
			meta := m.lookup(path, key)
			if meta.Strategy == Replace {
				out.Set(key, replacedValue(pv))
				continue
			}
			merged, err := m.mergeMap(*cur, pv, appendPath(path, key))
			if err != nil {
				return jsonv.Value{}, err
			}
			out.Set(key, merged)
		case jsonv.Array:
			merged, err := m.mergeListField(cur.Arr, pv.Arr, m.lookup(path, key), deleteList, appendPath(path, key))
			if err != nil {
				return jsonv.Value{}, err
			}
			out.Set(key, jsonv.Value{Kind: jsonv.Array, Arr: merged})
		default:
			out.Set(key, pv)
		}
	}
	return out, nil
}

// mapDirective handles an object carrying $patch.
func mapDirective(d, patch jsonv.Value) (jsonv.Value, error) {
	if d.Kind == jsonv.String {
		switch d.Str {
		case "replace":
			p := patch.Clone()
			p.Delete(directiveMarker)
			return replacedValue(p), nil
		case "delete":
			return jsonv.NewObject(), nil
		}
	}
	return jsonv.Value{}, errBadPatchType(d, patch)
}

// setOrDelete sets key to v, or removes key when v is absent (a value
// that was itself a directive).
func setOrDelete(out *jsonv.Value, key string, v *jsonv.Value) {
	if v == nil {
		out.Delete(key)
		return
	}
	out.Set(key, *v)
}

// sameGoType reports whether the server's decoder would give a and b the
// same Go type (numbers split into int64 and float64).
func sameGoType(a, b jsonv.Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == jsonv.Number {
		return isIntegral(a.Str) == isIntegral(b.Str)
	}
	return true
}

// directiveField splits "$prefix/field"; ok is false when key is not of
// that form.
func directiveField(key, prefix string) (string, bool) {
	head, field, ok := strings.Cut(key, "/")
	if !ok || head != prefix {
		return "", false
	}
	return field, true
}

// canonicalNumbers rewrites number literals with an integral value
// ("80.0", "1e2") as integers, as the server's decoder turns them into
// int64 before merging.
func canonicalNumbers(v jsonv.Value) jsonv.Value {
	switch v.Kind {
	case jsonv.Number:
		if !isIntegral(v.Str) {
			if f, err := strconv.ParseFloat(v.Str, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
				v.Str = strconv.FormatInt(int64(f), 10)
			}
		}
	case jsonv.Array:
		arr := make([]jsonv.Value, len(v.Arr))
		for i := range v.Arr {
			arr[i] = canonicalNumbers(v.Arr[i])
		}
		v.Arr = arr
	case jsonv.Object:
		obj := make([]jsonv.Member, len(v.Obj))
		for i := range v.Obj {
			obj[i] = jsonv.Member{Key: v.Obj[i].Key, Value: canonicalNumbers(v.Obj[i].Value)}
		}
		v.Obj = obj
	}
	return v
}
