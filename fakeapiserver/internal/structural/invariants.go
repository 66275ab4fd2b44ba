package structural

import (
	"slices"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// level is where a schema node stands: the root, an array's items or an
// object's field.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// Problems returns why the schema (a CRD version's openAPIV3Schema, as
// JSON) is not structural, in the real server's words, each at its place
// under path; nil when it is structural. The real server checks these
// before it compiles any rule.
func Problems(raw []byte, path string) []apistatus.FieldError {
	doc, err := jsonv.Parse(raw)
	if err != nil || doc.Value.Kind != jsonv.Object {
		return nil
	}
	var errs []apistatus.FieldError
	invariants(&doc.Value, rootLevel, path, &errs, 0)
	completeness(&doc.Value, path, func(e apistatus.FieldError) { errs = append(errs, e) })
	slices.SortStableFunc(errs, func(a, b apistatus.FieldError) int { return strings.Compare(a.Field, b.Field) })
	return errs
}

// flag reads a boolean keyword.
func flag(v *jsonv.Value, key string) bool {
	f := v.Get(key)
	return f != nil && f.Kind == jsonv.Bool && f.B
}

// typeOf reads the type keyword ("" when absent).
func typeOf(v *jsonv.Value) string {
	if t := v.Get("type"); t != nil && t.Kind == jsonv.String {
		return t.Str
	}
	return ""
}

func invariants(v *jsonv.Value, lvl level, path string, errs *[]apistatus.FieldError, depth int) {
	if v == nil || v.Kind != jsonv.Object || depth > 64 {
		return
	}
	add := func(e apistatus.FieldError) { *errs = append(*errs, e) }
	typ, embedded := typeOf(v), flag(v, "x-kubernetes-embedded-resource")
	items, props, additional := v.Get("items"), v.Get("properties"), v.Get("additionalProperties")
	if typ == "array" && items == nil {
		add(apistatus.FieldRequired(path+".items", "must be specified"))
	}
	invariants(items, itemLevel, path+".items", errs, depth+1)
	if props != nil && props.Kind == jsonv.Object {
		for i := range props.Obj {
			invariants(&props.Obj[i].Value, fieldLevel, path+".properties["+props.Obj[i].Key+"]", errs, depth+1)
		}
	}
	if additional != nil && additional.Kind == jsonv.Object {
		if lvl == rootLevel {
			add(apistatus.FieldForbidden(path+".additionalProperties", "must not be used at the root"))
		}
		invariants(additional, fieldLevel, path+".additionalProperties", errs, depth+1)
	}
	switch {
	case embedded && typ == "":
		add(apistatus.FieldRequired(path+".type", "must be object if x-kubernetes-embedded-resource is true"))
	case embedded && typ != "object":
		add(apistatus.FieldInvalid(path+".type", typ, "must be object if x-kubernetes-embedded-resource is true"))
	case typ == "" && !flag(v, "x-kubernetes-int-or-string") && !flag(v, "x-kubernetes-preserve-unknown-fields"):
		add(apistatus.FieldRequired(path+".type", [...]string{"must not be empty at the root", "must not be empty for specified array items", "must not be empty for specified object fields"}[lvl]))
	}
	if flag(v, "x-kubernetes-int-or-string") {
		for _, k := range []string{"x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"} {
			if flag(v, k) {
				add(apistatus.FieldInvalidRaw(path+"."+k, "true", "must be false if x-kubernetes-int-or-string is true"))
			}
		}
	}
	if embedded && additional != nil {
		add(apistatus.FieldForbidden(path+".additionalProperties", "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && typ != "" && typ != "object" {
		add(apistatus.FieldInvalid(path+".type", typ, "must be object at the root"))
	}
	if lvl == rootLevel || embedded {
		for _, k := range []string{"kind", "apiVersion"} {
			if p := props.Get(k); p != nil && typeOf(p) != "string" {
				add(apistatus.FieldInvalid(path+".properties["+k+"].type", typeOf(p), "must be string"))
			}
		}
	}
	if md := props.Get("metadata"); md != nil {
		metadataInvariants(md, lvl == rootLevel || embedded, lvl, path+".properties[metadata]", add)
	}
	junctors(v, path, add, depth)
	if embedded && !flag(v, "x-kubernetes-preserve-unknown-fields") && (props == nil || len(props.Obj) == 0) {
		add(apistatus.FieldRequired(path+".properties", "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
}

// metadataInvariants checks a metadata property: an object where the
// object's metadata is implied, and at the root nothing but the type, a
// default and string properties name and generateName.
func metadataInvariants(md *jsonv.Value, implied bool, lvl level, path string, add func(apistatus.FieldError)) {
	if implied && typeOf(md) != "object" {
		add(apistatus.FieldInvalid(path+".type", typeOf(md), "must be object"))
	}
	if lvl != rootLevel {
		return
	}
	extra := false
	for _, m := range md.Obj {
		switch m.Key {
		case "type", "default":
		case "properties":
			for _, p := range m.Value.Obj {
				if p.Key != "name" && p.Key != "generateName" {
					extra = true
				}
			}
		default:
			extra = true
		}
	}
	if extra {
		add(apistatus.FieldForbidden(path, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
	}
}
