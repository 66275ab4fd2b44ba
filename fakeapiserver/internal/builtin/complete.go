package builtin

import (
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// maxCompleteDepth bounds the walk; Go types cannot nest a struct inside
// itself, so only a malformed schema table would reach it.
const maxCompleteDepth = 64

// Complete makes obj read as the real server's Go types encode it, in
// place: a struct field that is never omitted appears as {} (with its own
// such fields), a field without omitempty appears with its zero value
// ("", 0, false; null for a list, map or timestamp), and an empty map or
// list in an omitempty field is dropped, as is the zero value (or null)
// of a non-pointer scalar field with omitempty (omittedZeros).
// definition names the schema of obj's kind
// (openapi.Definitions.ForKind); obj holds the top-level members other
// than kind, apiVersion and metadata, which the server keeps apart.
func Complete(defs *openapi.Definitions, definition string, obj *jsonv.Value) {
	c := completer{defs: defs}
	c.object(obj, &openapi.Schema{Ref: definition}, 0, true)
}

// named follows s's references and returns the name of the definition
// they end at ("" for an inline schema) with the resolved schema.
func (c completer) named(s *openapi.Schema) (string, *openapi.Schema) {
	name := ""
	for cur, depth := s, 0; cur != nil && cur.Ref != "" && depth < 8; depth++ {
		name = cur.Ref
		cur = c.defs.Get(name)
	}
	return name, c.defs.Resolve(s)
}

// CompleteStructs is Complete without the zero scalars and nulls: the
// never-omitted structs are added, and empty omitempty maps and lists
// and the zero values of omitempty scalars dropped. The real server records managedFields from an object in this
// state (its field manager sees a zero scalar of a Go field as unset, an
// empty struct as set).
func CompleteStructs(defs *openapi.Definitions, definition string, obj *jsonv.Value) {
	c := completer{defs: defs, structsOnly: true}
	c.object(obj, &openapi.Schema{Ref: definition}, 0, true)
}

// CompleteDecoded is CompleteStructs that keeps an empty list in an
// omitempty field: what a real server's validation sees, since Go's
// decoding of [] is an empty slice that is set, not nil (only the
// encoding, and the field manager's reading of an update, leave it out).
func CompleteDecoded(defs *openapi.Definitions, definition string, obj *jsonv.Value) {
	c := completer{defs: defs, structsOnly: true, emptyLists: true}
	c.object(obj, &openapi.Schema{Ref: definition}, 0, true)
}

// CompleteStructsAndTimes is CompleteStructs that also adds the
// never-omitted timestamps, lists and pointers as null: what the real
// field manager records a status write from (a Pod condition's
// lastProbeTime left unset is recorded as owned).
func CompleteStructsAndTimes(defs *openapi.Definitions, definition string, obj *jsonv.Value) {
	c := completer{defs: defs, structsOnly: true, times: true}
	c.object(obj, &openapi.Schema{Ref: definition}, 0, true)
}

// completer walks an object against the built-in schemas.
type completer struct {
	defs *openapi.Definitions
	// structsOnly adds only the never-omitted structs ({}), not the
	// zero scalars and nulls (see CompleteStructs).
	structsOnly bool
	// times adds the never-omitted timestamps (null) even when
	// structsOnly.
	times bool
	// emptyLists keeps the empty lists of omitempty fields (see
	// CompleteDecoded).
	emptyLists bool
}

// object completes one struct value against its schema.
func (c completer) object(v *jsonv.Value, s *openapi.Schema, depth int, top bool) {
	name, s := c.named(s)
	if v == nil || v.Kind != jsonv.Object || s == nil || depth > maxCompleteDepth {
		return
	}
	if !s.IsStruct() {
		if s.AdditionalProperties != nil {
			elem := s.AdditionalProperties
			for i := range v.Obj {
				c.value(&v.Obj[i].Value, elem, depth+1)
			}
		}
		return
	}
	// Drop empty omitempty maps and lists and the zero values of
	// omitempty scalars first, so the walk below sees the members that
	// stay.
	kept := v.Obj[:0]
	for _, m := range v.Obj {
		if p := s.Property(m.Key); p != nil && !(top && m.Key == "metadata") {
			if c.droppable(c.defs.Resolve(p), m.Value) && !isRequired(s, m.Key) || omittedZero(name, m.Key, m.Value) {
				continue
			}
		}
		kept = append(kept, m)
	}
	v.Obj = kept
	for i := range v.Obj {
		if top && (v.Obj[i].Key == "metadata" || v.Obj[i].Key == "kind" || v.Obj[i].Key == "apiVersion") {
			continue
		}
		if p := s.Property(v.Obj[i].Key); p != nil {
			if c.quantities(&v.Obj[i].Value, p, strings.HasPrefix(name, coreV1)) {
				continue
			}
			c.value(&v.Obj[i].Value, p, depth+1)
		}
	}
	for _, p := range s.Properties {
		if top && (p.Name == "metadata" || p.Name == "kind" || p.Name == "apiVersion") {
			continue
		}
		if v.Index(p.Name) >= 0 {
			continue
		}
		ps := c.defs.Resolve(p.Schema)
		switch {
		case p.Schema.DefaultEmpty || ps != nil && ps.DefaultEmpty:
			zero := jsonv.NewObject()
			c.object(&zero, p.Schema, depth+1, false)
			v.Obj = append(v.Obj, jsonv.Member{Key: p.Name, Value: zero})
		case c.structsOnly:
			if c.times && isRequired(s, p.Name) {
				if name, _ := c.named(p.Schema); name == timeDefinition {
					v.Obj = append(v.Obj, jsonv.Member{Key: p.Name})
				}
			}
		case isRequired(s, p.Name) && !omittedZero(name, p.Name, jsonv.Value{}):
			v.Obj = append(v.Obj, jsonv.Member{Key: p.Name, Value: c.zero(p.Schema, depth+1)})
		}
	}
	if c.structsOnly && !c.times {
		return
	}
	zeros, times := neverOmittedFields(name)
	for _, m := range zeros {
		// The field manager records a never-omitted nil list or pointer
		// too: the Go types encode it as null.
		if v.Index(m.Key) < 0 && (!c.structsOnly || m.Value.Kind == jsonv.Null) {
			v.Obj = append(v.Obj, jsonv.Member{Key: m.Key, Value: m.Value.Clone()})
		}
	}
	for _, key := range times {
		if v.Index(key) < 0 {
			v.Obj = append(v.Obj, jsonv.Member{Key: key})
		}
	}
}

// timeDefinition is the schema of metav1.Time.
const timeDefinition = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"

// quantityDefinition is the schema of resource.Quantity.
const quantityDefinition = "io.k8s.apimachinery.pkg.api.resource.Quantity"

// coreV1 starts the names of the core/v1 definitions, whose resource
// lists (maps of quantities) are rounded up to the milliunit.
const coreV1 = "io.k8s.api.core.v1."

// quantities puts a field that is a Quantity, or a map of them, in the
// canonical form the real server serves (canonicalQuantity), the map's
// values rounded up to the milliunit when resourceList. It reports
// whether the field was one; a value that is no quantity stays as sent.
func (c completer) quantities(v *jsonv.Value, field *openapi.Schema, resourceList bool) bool {
	if name, _ := c.named(field); name == quantityDefinition {
		canonicalize(v, false)
		return true
	}
	s := c.defs.Resolve(field)
	if s == nil || s.IsStruct() || s.AdditionalProperties == nil {
		return false
	}
	if name, _ := c.named(s.AdditionalProperties); name != quantityDefinition {
		return false
	}
	if v.Kind == jsonv.Object {
		for i := range v.Obj {
			canonicalize(&v.Obj[i].Value, resourceList)
		}
	}
	return true
}

// canonicalize rewrites a quantity (a JSON string or number) as the
// canonical string.
func canonicalize(v *jsonv.Value, milli bool) {
	if v.Kind != jsonv.String && v.Kind != jsonv.Number {
		return
	}
	if s, ok := canonicalQuantity(v.Str, milli); ok {
		*v = jsonv.NewString(s)
	}
}

// value completes the members of a struct, the items of a list and the
// values of a map. s is the field's schema, not yet resolved.
func (c completer) value(v *jsonv.Value, s *openapi.Schema, depth int) {
	if s == nil || depth > maxCompleteDepth {
		return
	}
	switch v.Kind {
	case jsonv.Object:
		c.object(v, s, depth, false)
	case jsonv.Array:
		r := c.defs.Resolve(s)
		if r == nil || r.Items == nil {
			return
		}
		elem := r.Items
		for i := range v.Arr {
			c.value(&v.Arr[i], elem, depth+1)
		}
	}
}

// zero is the encoding of a never-omitted field's zero value.
func (c completer) zero(field *openapi.Schema, depth int) jsonv.Value {
	s := c.defs.Resolve(field)
	if s == nil {
		return jsonv.Value{}
	}
	switch {
	case s.IsStruct():
		// A required struct that is not marked default {} is a Go
		// pointer: nil encodes as null.
		return jsonv.Value{}
	case s.IntOrString:
		return number(0)
	case len(s.OneOf) > 0:
		return jsonv.NewString("0")
	}
	switch s.Type {
	case "string":
		if s.Format == "date-time" {
			return jsonv.Value{}
		}
		return jsonv.NewString("")
	case "integer", "number":
		return number(0)
	case "boolean":
		return jsonv.Value{Kind: jsonv.Bool}
	}
	return jsonv.Value{}
}

// droppable reports whether v is an empty map or list, which an omitempty
// field does not encode (an empty struct is encoded as {}); an empty
// list stays when c keeps them.
func (c completer) droppable(s *openapi.Schema, v jsonv.Value) bool {
	if s == nil {
		return false
	}
	switch v.Kind {
	case jsonv.Object:
		return len(v.Obj) == 0 && s.IsMap()
	case jsonv.Array:
		return len(v.Arr) == 0 && !c.emptyLists
	}
	return false
}

// isRequired reports whether name is one of s's never-omitted fields.
func isRequired(s *openapi.Schema, name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}
