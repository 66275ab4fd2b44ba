package structural

import (
	"regexp"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The schemas under allOf, anyOf, oneOf and not may only validate values:
// what gives a value its shape (type, additionalProperties, default,
// nullable, the x-kubernetes extensions of shape and lists, rules) is
// forbidden there, each with the real server's words; and what they say
// of a field or of array items the root's own schema must also specify.
// The two spellings of an int-or-string, anyOf [integer, string] or an
// allOf whose first anyOf is that, are exempt.

// junctors checks the value validations of the structural node v at path.
func junctors(v *jsonv.Value, path string, add func(apistatus.FieldError), depth int) {
	skipAnyOf := isIntOrStringAnyOf(v.Get("anyOf"))
	skipFirstAllOfAnyOf := false
	if all := v.Get("allOf"); all != nil && all.Kind == jsonv.Array && len(all.Arr) > 0 {
		skipFirstAllOfAnyOf = isIntOrStringAnyOf(all.Arr[0].Get("anyOf"))
	}
	valueValidation(v, skipAnyOf, skipFirstAllOfAnyOf, path, add, depth)
}

// valueValidation checks the junctors of one node (structural or nested).
func valueValidation(v *jsonv.Value, skipAnyOf, skipFirstAllOfAnyOf bool, path string, add func(apistatus.FieldError), depth int) {
	for _, k := range []string{"anyOf", "allOf", "oneOf"} {
		list := v.Get(k)
		if list == nil || list.Kind != jsonv.Array || k == "anyOf" && skipAnyOf {
			continue
		}
		for i := range list.Arr {
			nested(&list.Arr[i], k == "allOf" && i == 0 && skipFirstAllOfAnyOf, path+"."+k+"["+strconv.Itoa(i)+"]", add, depth+1)
		}
	}
	nested(v.Get("not"), false, path+".not", add, depth+1)
	if p := v.Get("pattern"); p != nil && p.Kind == jsonv.String && p.Str != "" {
		if _, err := regexp.Compile(p.Str); err != nil {
			add(apistatus.FieldInvalid(path+".pattern", p.Str, "must be a valid regular expression, but isn't: "+err.Error()))
		}
	}
}

// nestedForbidden are the keywords a nested schema may not hold, each
// with what makes it count (set, true or non-empty) and the message.
var nestedForbidden = []struct {
	key, message string
	present      func(*jsonv.Value) bool
}{
	{"type", "must be empty to be structural", nonEmpty},
	{"additionalProperties", "must be undefined to be structural", isSet},
	{"default", "must be undefined to be structural", isSet},
	{"title", "must be empty to be structural", nonEmpty},
	{"description", "must be empty to be structural", nonEmpty},
	{"nullable", "must be false to be structural", isTrue},
	{"x-kubernetes-preserve-unknown-fields", "must be false to be structural", isTrue},
	{"x-kubernetes-embedded-resource", "must be false to be structural", isTrue},
	{"x-kubernetes-int-or-string", "must be false to be structural", isTrue},
	{"x-kubernetes-list-map-keys", "must be empty to be structural", nonEmpty},
	{"x-kubernetes-list-type", "must be undefined to be structural", isSet},
	{"x-kubernetes-map-type", "must be undefined to be structural", isSet},
	{"x-kubernetes-validations", "must be empty to be structural", nonEmpty},
}

func isSet(v *jsonv.Value) bool  { return v.Kind != jsonv.Null }
func isTrue(v *jsonv.Value) bool { return v.Kind == jsonv.Bool && v.B }
func nonEmpty(v *jsonv.Value) bool {
	switch v.Kind {
	case jsonv.String:
		return v.Str != ""
	case jsonv.Array:
		return len(v.Arr) > 0
	}
	return v.Kind != jsonv.Null
}

// nested checks one schema under a junctor, its own junctors, items and
// properties.
func nested(v *jsonv.Value, skipAnyOf bool, path string, add func(apistatus.FieldError), depth int) {
	if v == nil || v.Kind != jsonv.Object || depth > 64 {
		return
	}
	valueValidation(v, skipAnyOf, false, path, add, depth)
	nested(v.Get("items"), false, path+".items", add, depth+1)
	props := v.Get("properties")
	if props != nil && props.Kind == jsonv.Object {
		for i := range props.Obj {
			nested(&props.Obj[i].Value, false, path+".properties["+props.Obj[i].Key+"]", add, depth+1)
		}
	}
	for _, f := range nestedForbidden {
		if x := v.Get(f.key); x != nil && f.present(x) {
			add(apistatus.FieldForbidden(path+"."+f.key, f.message))
		}
	}
	if props.Get("metadata") != nil {
		add(apistatus.FieldForbidden(path+".properties[metadata]", "must not be specified in a nested context"))
	}
}

// isIntOrStringAnyOf reports whether list is exactly [{type: integer},
// {type: string}].
func isIntOrStringAnyOf(list *jsonv.Value) bool {
	if list == nil || list.Kind != jsonv.Array || len(list.Arr) != 2 {
		return false
	}
	for i, want := range []string{"integer", "string"} {
		e := &list.Arr[i]
		if e.Kind != jsonv.Object || len(e.Obj) != 1 || typeOf(e) != want {
			return false
		}
	}
	return true
}

// completeness checks that every field and array item the root's
// junctors speak of is specified by the root's own schema s (at sPath).
func completeness(s *jsonv.Value, path string, add func(apistatus.FieldError)) {
	completeJunctors(s, s, path, path, add, 0)
}

// completeJunctors checks the junctors of v (at vPath) against s.
func completeJunctors(v, s *jsonv.Value, sPath, vPath string, add func(apistatus.FieldError), depth int) {
	completeNested(v.Get("not"), s, sPath, vPath+".not", add, depth+1)
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list := v.Get(k); list != nil && list.Kind == jsonv.Array {
			for i := range list.Arr {
				completeNested(&list.Arr[i], s, sPath, vPath+"."+k+"["+strconv.Itoa(i)+"]", add, depth+1)
			}
		}
	}
}

// completeNested checks one nested schema v against the structural s.
func completeNested(v, s *jsonv.Value, sPath, vPath string, add func(apistatus.FieldError), depth int) {
	if v == nil || v.Kind != jsonv.Object || depth > 64 {
		return
	}
	if s == nil || s.Kind != jsonv.Object {
		add(apistatus.FieldRequired(sPath, "because it is defined in "+vPath))
		return
	}
	completeJunctors(v, s, sPath, vPath, add, depth)
	completeNested(v.Get("items"), s.Get("items"), sPath+".items", vPath+".items", add, depth+1)
	props := v.Get("properties")
	if props == nil || props.Kind != jsonv.Object {
		return
	}
	for i := range props.Obj {
		k := props.Obj[i].Key
		sub := s.Get("properties").Get(k)
		if sub == nil {
			add(apistatus.FieldRequired(sPath+".properties["+k+"]", "because it is defined in "+vPath+".properties["+k+"]"))
			continue
		}
		completeNested(&props.Obj[i].Value, sub, sPath+".properties["+k+"]", vPath+".properties["+k+"]", add, depth+1)
	}
}
