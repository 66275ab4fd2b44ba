package validation

import (
	"fmt"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"
	"github.com/kubecache/kubecache/meta"
)

// Custom resources against their CustomResourceDefinition version's
// structural schema (openAPIV3Schema), as the real server checks them:
// fields the schema does not declare are pruned (and reported as unknown
// fields: Warning headers, or the error under fieldValidation=Strict), and
// every value of the wrong JSON type is a 422 naming the field, in the
// schema validator's words. A null is kept where the schema says nullable
// and dropped elsewhere. Defaults are set after pruning; the value
// keywords (formats, enums, patterns, bounds, required fields, list
// types) are checked by CustomValues once the old object is known, so
// that an update may keep an unchanged invalid value.

// customWalk is one walk of a custom resource against its schema.
type customWalk struct {
	// errs are the type errors, in the order found.
	errs []apistatus.FieldError
	// fields are the unknown-field messages, in document order.
	fields []string
}

// members walks an object's members against the object schema s and
// returns those the schema keeps (the slice is filtered in place).
func (w *customWalk) members(obj []jsonv.Member, s *openapi.Schema, path string) []jsonv.Member {
	kept := obj[:0]
	for _, m := range obj {
		p := m.Key
		if path != "" {
			p = path + "." + m.Key
		}
		child := s.Property(m.Key)
		if child == nil {
			child = s.AdditionalProperties
		}
		switch {
		case child != nil && m.Value.Kind == jsonv.Null && !child.Nullable:
			// The real server drops a null it may not keep.
			continue
		case child != nil:
			m.Value = w.value(m.Value, child, p)
		case s.PreserveUnknownFields, s.EmbeddedResource && (m.Key == "apiVersion" || m.Key == "kind" || m.Key == "metadata"):
		default:
			w.fields = append(w.fields, fmt.Sprintf("unknown field %q", p))
			continue
		}
		kept = append(kept, m)
	}
	return kept
}

// value checks one value against s and returns it pruned.
func (w *customWalk) value(v jsonv.Value, s *openapi.Schema, path string) jsonv.Value {
	if s == nil || v.Kind == jsonv.Null {
		return v
	}
	got := jsonSchemaType(v)
	if s.IntOrString {
		if got != "integer" && got != "string" {
			w.typeError(path, got, "integer,string")
		}
		return v
	}
	switch s.Type {
	case "object", "":
		if v.Kind != jsonv.Object {
			if s.Type != "" {
				w.typeError(path, got, "object")
			}
			return v
		}
		if s.Type != "" || len(s.Properties) > 0 || s.AdditionalProperties != nil {
			v.Obj = w.members(v.Obj, s, path)
		}
	case "array":
		if v.Kind != jsonv.Array {
			w.typeError(path, got, "array")
			return v
		}
		for i := range v.Arr {
			v.Arr[i] = w.value(v.Arr[i], s.Items, path+"["+strconv.Itoa(i)+"]")
		}
	case "number":
		if v.Kind != jsonv.Number {
			w.typeError(path, got, "number")
		}
	case "integer":
		if got != "integer" {
			w.typeError(path, got, "integer")
		}
		if got == "number" {
			// The validator's second complaint about a fraction.
			w.errs = append(w.errs, apistatus.FieldError{Type: meta.CauseFieldValueInvalid, Field: "<nil>", Value: `""`, Detail: "Checked value must be of type integer (default format) in " + path})
		}
	case "string", "boolean":
		if got != s.Type {
			w.typeError(path, got, s.Type)
		}
	}
	return v
}

// typeError records a value of JSON type got where want was declared.
func (w *customWalk) typeError(path, got, want string) {
	e := apistatus.FieldInvalid(path, got, fmt.Sprintf("%s in body must be of type %s: %q", path, want, got))
	e.Type = causeTypeInvalid
	w.errs = append(w.errs, e)
}

// causeTypeInvalid is the cause type of a value of the wrong JSON type.
const causeTypeInvalid meta.CauseType = "FieldValueTypeInvalid"

// jsonSchemaType names v's type as the schema validator does: a number
// that is a whole int64 is an "integer".
func jsonSchemaType(v jsonv.Value) string {
	if v.Kind == jsonv.Number {
		if _, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
			return "integer"
		}
	}
	return v.Kind.String()
}

// CheckCustom prunes and type-checks a custom resource's top-level members
// (all but kind, apiVersion and metadata) against its CRD's structural
// schema, then sets the schema's defaults, as the real server's decoder
// does. It returns the members kept, the unknown fields it dropped (for
// fieldValidation) and the type errors (a 422).
func CheckCustom(rest []jsonv.Member, res *registry.Resource) ([]jsonv.Member, []string, []apistatus.FieldError) {
	cw := &customWalk{}
	kept := cw.members(rest, res.CustomSchema, "")
	if len(cw.errs) == 0 && res.Structural != nil {
		kept = structural.DefaultMembers(kept, res.Structural)
	}
	if len(cw.errs) > 0 && res.CustomRules != nil {
		cw.errs = append(cw.errs, rulesNotChecked)
	}
	return kept, cw.fields, cw.errs
}

// rulesNotChecked is the cause the real server adds when an object that
// fails its schema has CEL rules, which then do not run.
var rulesNotChecked = apistatus.FieldError{Type: meta.CauseFieldValueInvalid, Field: "<nil>", Value: "null",
	Detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"}

// CustomValues checks a custom resource's values against its schema's
// keywords and list types (structural.Validate), then, when those pass,
// its CEL rules (Resource.CustomRules), whose root rules also read the
// object's apiVersion, its kind and m's name and generateName: old holds
// the stored object's members on update (nil on create), whose unchanged
// values are not checked again.
func CustomValues(res *registry.Resource, apiVersion string, m *meta.ObjectMeta, rest, old []jsonv.Member) []apistatus.FieldError {
	if !res.Custom || res.Structural == nil {
		return nil
	}
	errs := structural.Validate(rest, old, res.Structural)
	switch {
	case res.CustomRules == nil:
	case len(errs) > 0:
		errs = append(errs, rulesNotChecked)
	default:
		errs = res.CustomRules.Check(identity(apiVersion, res.Kind, m), rest, old)
	}
	return errs
}

// identity is the apiVersion, kind and metadata (name and generateName
// only) a rule at the root of a custom resource sees.
func identity(apiVersion, kind string, m *meta.ObjectMeta) []jsonv.Member {
	str := func(s string) jsonv.Value { return jsonv.Value{Kind: jsonv.String, Str: s} }
	md := []jsonv.Member{{Key: "name", Value: str(m.Name)}}
	if m.GenerateName != "" {
		md = append(md, jsonv.Member{Key: "generateName", Value: str(m.GenerateName)})
	}
	return []jsonv.Member{
		{Key: "apiVersion", Value: str(apiVersion)},
		{Key: "kind", Value: str(kind)},
		{Key: "metadata", Value: jsonv.Value{Kind: jsonv.Object, Obj: md}},
	}
}
