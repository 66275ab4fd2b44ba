package structural

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Validate checks a custom resource's top-level members (all but kind,
// apiVersion and metadata) against the schema's value keywords and list
// types, in the real server's words. On update, old holds the stored
// object's members: a value equal to the one at the same place in the old
// object is not checked again (ratcheting), so an object stored before a
// rule tightened can still be changed elsewhere. Values of the wrong type
// are left to the decoder's type check. Errors come in property order.
func Validate(rest, old []jsonv.Member, s *Schema) []apistatus.FieldError {
	v := &validator{}
	nv := jsonv.Value{Kind: jsonv.Object, Obj: rest}
	var ov *jsonv.Value
	if old != nil {
		ov = &jsonv.Value{Kind: jsonv.Object, Obj: old}
	}
	v.object(&nv, ov, s, "")
	return v.errs
}

type validator struct {
	errs []apistatus.FieldError
}

func (v *validator) add(e apistatus.FieldError) { v.errs = append(v.errs, e) }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// render shows a value in a message: strings quoted, the rest as JSON.
func render(x jsonv.Value) string {
	if x.Kind == jsonv.String {
		return strconv.Quote(x.Str)
	}
	return string(jsonv.Marshal(x))
}

// value checks x (old: the value at the same place before an update, or
// nil).
func (v *validator) value(x, old *jsonv.Value, s *Schema, path string) {
	if s == nil || x.Kind == jsonv.Null {
		return
	}
	if old != nil && jsonv.Equal(*x, *old) {
		return
	}
	if len(s.Enum) > 0 && !s.IntOrString {
		ok := false
		for _, e := range s.Enum {
			if jsonv.Equal(e, *x) {
				ok = true
				break
			}
		}
		if !ok {
			var sup string
			for i, e := range s.Enum {
				if i > 0 {
					sup += ", "
				}
				sup += render(e)
			}
			v.add(apistatus.FieldError{Type: meta.CauseFieldValueNotSupported, Field: path, Value: render(*x), Detail: "supported values: " + sup})
		}
	}
	switch x.Kind {
	case jsonv.String:
		v.str(x.Str, s, path)
	case jsonv.Number:
		v.number(x.Str, s, path)
	case jsonv.Array:
		if s.Type == "array" {
			v.array(x, old, s, path)
		}
	case jsonv.Object:
		if s.Type == "object" || s.Type == "" {
			v.object(x, old, s, path)
		}
	}
}

func (v *validator) str(str string, s *Schema, path string) {
	if s.Type != "string" && !s.IntOrString {
		return
	}
	// The string checks stop at the first that fails, as the real
	// validator's do; the format is a check of its own.
	n := int64(utf8.RuneCountInString(str))
	switch {
	case s.MaxLength != nil && n > *s.MaxLength:
		v.add(apistatus.FieldError{Type: apistatus.CauseFieldValueTooLong, Field: path, Detail: fmt.Sprintf("may not be more than %d bytes", *s.MaxLength)})
	case s.MinLength != nil && n < *s.MinLength:
		v.add(apistatus.FieldInvalid(path, str, fmt.Sprintf("%s in body should be at least %d chars long", path, *s.MinLength)))
	case s.Pattern != nil && !s.Pattern.MatchString(str):
		v.add(apistatus.FieldInvalid(path, str, fmt.Sprintf("%s in body should match '%s'", path, s.Pattern.String())))
	}
	if s.Format != "" && !FormatOK(s.Format, str) {
		v.add(apistatus.FieldError{Type: apistatus.CauseFieldValueTypeInvalid, Field: path, Value: strconv.Quote(str), Detail: fmt.Sprintf("%s in body must be of type %s: %q", path, s.Format, str)})
	}
}

func num(lit string) float64 {
	f, _ := strconv.ParseFloat(lit, 64)
	return f
}

func show(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func (v *validator) number(lit string, s *Schema, path string) {
	if s.Type != "number" && s.Type != "integer" {
		return
	}
	f := num(lit)
	// The first failing bound is reported: multipleOf, then the maximum,
	// then the minimum, as the real validator checks them.
	detail := ""
	if m := num(s.MultipleOf); s.MultipleOf != "" && m != 0 && f/m != math.Trunc(f/m) {
		detail = "should be a multiple of " + show(m)
	} else if m := num(s.Maximum); s.Maximum != "" && s.ExclusiveMaximum && f >= m {
		detail = "should be less than " + show(m)
	} else if s.Maximum != "" && !s.ExclusiveMaximum && f > m {
		detail = "should be less than or equal to " + show(m)
	} else if m := num(s.Minimum); s.Minimum != "" && s.ExclusiveMinimum && f <= m {
		detail = "should be greater than " + show(m)
	} else if s.Minimum != "" && !s.ExclusiveMinimum && f < m {
		detail = "should be greater than or equal to " + show(m)
	}
	if detail != "" {
		v.add(apistatus.FieldInvalidRaw(path, lit, path+" in body "+detail))
	}
}

func (v *validator) array(x, old *jsonv.Value, s *Schema, path string) {
	n := int64(len(x.Arr))
	if s.MaxItems != nil && n > *s.MaxItems {
		v.add(apistatus.FieldError{Type: apistatus.CauseFieldValueTooMany, Field: path, Value: strconv.FormatInt(n, 10), Detail: fmt.Sprintf("must have at most %d items", *s.MaxItems)})
	}
	if s.MinItems != nil && n < *s.MinItems {
		v.add(apistatus.FieldInvalidRaw(path, strconv.FormatInt(n, 10), fmt.Sprintf("%s in body should have at least %d items", path, *s.MinItems)))
	}
	for i := range x.Arr {
		v.value(&x.Arr[i], OldItem(x, old, i, s), s.Items, path+"["+strconv.Itoa(i)+"]")
	}
	v.listType(x, s, path)
}

func (v *validator) object(x, old *jsonv.Value, s *Schema, path string) {
	if s.Type == "" && len(s.Properties) == 0 && s.AdditionalProperties == nil && !s.EmbeddedResource {
		return
	}
	n := int64(len(x.Obj))
	if s.MaxProperties != nil && n > *s.MaxProperties {
		v.add(apistatus.FieldError{Type: apistatus.CauseFieldValueTooMany, Field: path, Value: strconv.FormatInt(n, 10), Detail: fmt.Sprintf("must have at most %d items", *s.MaxProperties)})
	}
	if s.MinProperties != nil && n < *s.MinProperties {
		v.add(apistatus.FieldInvalidRaw(path, strconv.FormatInt(n, 10), fmt.Sprintf("%s in body should have at least %d properties", path, *s.MinProperties)))
	}
	required := s.Required
	if s.EmbeddedResource {
		required = append(append([]string(nil), required...), "apiVersion", "kind")
	}
	for _, r := range required {
		if m := x.Get(r); m == nil || (m.Kind == jsonv.Null && !s.child(r).nullable()) {
			v.add(apistatus.FieldRequired(join(path, r), ""))
		}
	}
	for _, name := range s.propertyNames {
		if m := x.Get(name); m != nil {
			v.value(m, member(old, name), s.Properties[name], join(path, name))
		}
	}
	if s.AdditionalProperties != nil {
		for i := range x.Obj {
			m := &x.Obj[i]
			if _, declared := s.Properties[m.Key]; !declared {
				v.value(&m.Value, member(old, m.Key), s.AdditionalProperties, join(path, m.Key))
			}
		}
	}
}

func (s *Schema) nullable() bool { return s != nil && s.Nullable }

// member returns old's member key, or nil.
func member(old *jsonv.Value, key string) *jsonv.Value {
	if old == nil || old.Kind != jsonv.Object {
		return nil
	}
	return old.Get(key)
}
