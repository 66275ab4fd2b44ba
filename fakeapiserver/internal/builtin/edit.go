package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The helpers below edit a decoded object in place. A pointer returned by
// child or item points into its parent's member list, so a caller finishes
// with it before adding a key to that parent.

// child returns the object under key, creating it when the key is absent or
// null (a Go struct field the real server always has). It returns nil when
// v is not an object or the key holds something other than an object.
func child(v *jsonv.Value, key string) *jsonv.Value {
	if v == nil || v.Kind != jsonv.Object {
		return nil
	}
	c := v.Get(key)
	if c == nil || c.Kind == jsonv.Null {
		v.Set(key, jsonv.NewObject())
		c = v.Get(key)
	}
	if c.Kind != jsonv.Object {
		return nil
	}
	return c
}

// present returns the object under key, or nil when it is absent, null or
// not an object (a Go pointer field left nil).
func present(v *jsonv.Value, key string) *jsonv.Value {
	c := v.Get(key)
	if c == nil || c.Kind != jsonv.Object {
		return nil
	}
	return c
}

// each calls fn for every object in the array under key.
func each(v *jsonv.Value, key string, fn func(item *jsonv.Value)) {
	arr := v.Get(key)
	if arr == nil || arr.Kind != jsonv.Array {
		return
	}
	for i := range arr.Arr {
		if arr.Arr[i].Kind == jsonv.Object {
			fn(&arr.Arr[i])
		}
	}
}

// unset reports whether key is absent or null: a nil Go pointer.
func unset(v *jsonv.Value, key string) bool {
	c := v.Get(key)
	return c == nil || c.Kind == jsonv.Null
}

// empty reports whether key holds the zero value of its Go type: absent,
// null, "", 0, false, or an empty array or object.
func empty(v *jsonv.Value, key string) bool {
	c := v.Get(key)
	if c == nil {
		return true
	}
	switch c.Kind {
	case jsonv.Null:
		return true
	case jsonv.String:
		return c.Str == ""
	case jsonv.Number:
		f, err := strconv.ParseFloat(c.Str, 64)
		return err == nil && f == 0
	case jsonv.Bool:
		return !c.B
	case jsonv.Array:
		return len(c.Arr) == 0
	case jsonv.Object:
		return len(c.Obj) == 0
	}
	return false
}

// str returns the string under key, or "".
func str(v *jsonv.Value, key string) string {
	if c := v.Get(key); c != nil && c.Kind == jsonv.String {
		return c.Str
	}
	return ""
}

// orString sets key to s when it holds the zero value (a Go string field
// compared with "").
func orString(v *jsonv.Value, key, s string) {
	if empty(v, key) {
		v.Set(key, jsonv.NewString(s))
	}
}

// orInt sets key to n when it holds the zero value (a Go int field
// compared with 0).
func orInt(v *jsonv.Value, key string, n int64) {
	if empty(v, key) {
		v.Set(key, number(n))
	}
}

// ptrString sets key to s when it is unset (a Go *string compared with
// nil).
func ptrString(v *jsonv.Value, key, s string) {
	if unset(v, key) {
		v.Set(key, jsonv.NewString(s))
	}
}

// ptrInt sets key to n when it is unset.
func ptrInt(v *jsonv.Value, key string, n int64) {
	if unset(v, key) {
		v.Set(key, number(n))
	}
}

// ptrBool sets key to b when it is unset.
func ptrBool(v *jsonv.Value, key string, b bool) {
	if unset(v, key) {
		v.Set(key, jsonv.Value{Kind: jsonv.Bool, B: b})
	}
}

// ptrObject sets key to an empty object when it is unset.
func ptrObject(v *jsonv.Value, key string) {
	if unset(v, key) {
		v.Set(key, jsonv.NewObject())
	}
}

// number returns n as a JSON number.
func number(n int64) jsonv.Value {
	return jsonv.Value{Kind: jsonv.Number, Str: strconv.FormatInt(n, 10)}
}

// stringArray returns a JSON array of strings.
func stringArray(ss ...string) jsonv.Value {
	arr := make([]jsonv.Value, len(ss))
	for i, s := range ss {
		arr[i] = jsonv.NewString(s)
	}
	return jsonv.Value{Kind: jsonv.Array, Arr: arr}
}

// object builds a JSON object from key, value pairs.
func object(members ...jsonv.Member) jsonv.Value {
	return jsonv.Value{Kind: jsonv.Object, Obj: members}
}

// stringMap returns the string members of the object under key, or nil
// when it is absent or empty.
func stringMap(v *jsonv.Value, key string) map[string]string {
	c := present(v, key)
	if c == nil || len(c.Obj) == 0 {
		return nil
	}
	out := make(map[string]string, len(c.Obj))
	for _, m := range c.Obj {
		if m.Value.Kind == jsonv.String {
			out[m.Key] = m.Value.Str
		}
	}
	return out
}
