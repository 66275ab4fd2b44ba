package validation

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
)

// Type validation of request bodies against the kinds' OpenAPI schemas.
//
// The real server decodes a body into the kind's Go struct, and the Go
// JSON decoder decides what is refused: a value of the wrong JSON type, a
// number that does not fit its integer, a quantity or timestamp that does
// not parse. It records unknown and duplicate fields on the way, which
// become Warning headers or, under fieldValidation=Strict, the error. The
// fake server stores JSON as it is, so it walks the body against the
// schema the real server publishes (internal/openapi) once, collecting
// both: one walk serves type errors and unknown fields alike.
//
// Unknown fields are dropped from the body, as decoding into the Go type
// drops them. The decoder's rules, as the walk reproduces them:
//   - null is accepted for every field (it leaves the Go zero value);
//   - the first plain type error is kept and the walk goes on; an error
//     from a type with its own decoding (Quantity, IntOrString, Time)
//     stops it at once and wins over an earlier one;
//   - a wrong value is skipped, so nothing below it is reported.
//
// Go type names in messages come from the schema, so a named type reads
// as what it is built from (v1.Protocol as string, v1.ResourceList as
// map[string]resource.Quantity).

// Definitions of the types that decode themselves.
const (
	defQuantity    = "io.k8s.apimachinery.pkg.api.resource.Quantity"
	defIntOrString = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
	defTime        = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
	defMicroTime   = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
	defObjectMeta  = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

	// rfc3339Micro is metav1.MicroTime's wire layout.
	rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"
)

// SchemaWalk is one walk of a body against a schema: the first error, and
// the unknown and duplicate fields in document order.
type SchemaWalk struct {
	defs *openapi.Definitions
	// dups holds the dotted paths (without list indexes) of keys the
	// parser saw twice; each is reported once, after the key's value.
	dups map[string]bool
	// Err is the decoding error as the real server words it ("" if none);
	// fatal says it stopped the walk.
	Err   string
	fatal bool
	// Fields are the unknown- and duplicate-field messages.
	Fields []string
	// Pruned says unknown fields were dropped from the body.
	Pruned bool
	// steps is the path from the root to the current value (see
	// render); prefix is the root's own path ("metadata" when metadata
	// is walked alone). stack backs steps for ordinary depths.
	steps  []pathStep
	prefix string
	stack  [24]pathStep
}

// pathStep is one step from the root to where the walk is: a member
// (key; inMap when the key is data, a map entry) or a list item (index
// >= 0).
type pathStep struct {
	key   string
	index int
	inMap bool
}

// Where the walk is, as w.steps; the strings are built only for a message.
// Three renderings exist: the unknown-field messages write list indexes
// and map keys ("spec.containers[0].bogus"), the Go decoder's type errors
// write neither ("spec.containers.image"), and the parser's duplicate list
// writes map keys but no indexes.

func (w *SchemaWalk) push(st pathStep) { w.steps = append(w.steps, st) }

func (w *SchemaWalk) pop() { w.steps = w.steps[:len(w.steps)-1] }

// render writes the current path with list indexes and map keys as asked;
// the prefix (the root's own path) is written unless neither is.
func (w *SchemaWalk) render(indexes, mapKeys bool) string {
	var b strings.Builder
	if indexes || mapKeys {
		b.WriteString(w.prefix)
	}
	for _, st := range w.steps {
		switch {
		case st.index >= 0:
			if indexes {
				b.WriteString("[" + strconv.Itoa(st.index) + "]")
			}
		case st.inMap && !mapKeys:
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(st.key)
		}
	}
	return b.String()
}

// newSchemaWalk starts a walk; duplicates is the parser's list.
func newSchemaWalk(defs *openapi.Definitions, duplicates []string) *SchemaWalk {
	w := &SchemaWalk{defs: defs}
	w.steps = w.stack[:0]
	if len(duplicates) > 0 {
		w.dups = make(map[string]bool, len(duplicates))
		for _, d := range duplicates {
			w.dups[d] = true
		}
	}
	return w
}

// object walks the members of an object against the struct schema s;
// goStruct is the Go struct the members are fields of.
func (w *SchemaWalk) object(v *jsonv.Value, s *openapi.Schema, goStruct string) {
	rs := w.defs.Resolve(s)
	if rs == nil {
		return
	}
	unknown := false
	for i := range v.Obj {
		if w.fatal {
			return
		}
		m := &v.Obj[i]
		prop, inMap := rs.Property(m.Key), false
		if prop == nil && rs.AdditionalProperties != nil {
			prop, inMap = rs.AdditionalProperties, true
		}
		w.push(pathStep{key: m.Key, index: -1, inMap: inMap})
		switch {
		case prop != nil:
			w.value(&m.Value, prop, goStruct)
		case !rs.PreserveUnknownFields:
			w.Fields = append(w.Fields, fmt.Sprintf("unknown field %q", w.render(true, true)))
			unknown = true
		}
		w.duplicate()
		w.pop()
	}
	if unknown {
		// The Go type has no place for these: the real server drops them.
		kept := v.Obj[:0]
		for _, m := range v.Obj {
			if rs.Property(m.Key) != nil || rs.AdditionalProperties != nil {
				kept = append(kept, m)
			}
		}
		v.Obj = kept
		w.Pruned = true
	}
}

// duplicate reports the current member when the parser saw its key twice.
func (w *SchemaWalk) duplicate() {
	if len(w.dups) == 0 {
		return
	}
	if d := w.render(false, true); w.dups[d] {
		delete(w.dups, d)
		w.Fields = append(w.Fields, fmt.Sprintf("duplicate field %q", w.render(true, true)))
	}
}

// value walks one value against the (unresolved) schema s of the current
// field, a field of the Go struct goStruct.
func (w *SchemaWalk) value(v *jsonv.Value, s *openapi.Schema, goStruct string) {
	if s == nil || v.Kind == jsonv.Null || w.fatal {
		return
	}
	switch s.Ref {
	case defQuantity:
		if msg := quantityProblem(v); msg != "" {
			w.stop(msg)
		}
		return
	case defIntOrString:
		if v.Kind != jsonv.String {
			if what := intProblem(v, 32); what != "" {
				w.stop(w.typeError(what, goStruct, "int32"))
			}
		}
		return
	case defTime, defMicroTime:
		if v.Kind != jsonv.String {
			w.stop(w.typeError(GoKind(v.Kind), goStruct, "string"))
			return
		}
		layout := time.RFC3339
		if s.Ref == defMicroTime {
			layout = rfc3339Micro
		}
		if _, err := time.Parse(layout, v.Str); err != nil {
			w.stop(err.Error())
		}
		return
	}
	rs := w.defs.Resolve(s)
	if rs == nil || len(rs.OneOf) > 0 {
		return
	}
	switch rs.Type {
	case "object":
		switch {
		case len(rs.Properties) > 0:
			if v.Kind != jsonv.Object {
				w.save(w.typeError(GoKind(v.Kind), goStruct, w.goType(s)))
				return
			}
			w.object(v, rs, structName(s.Ref))
		case rs.AdditionalProperties != nil:
			if v.Kind != jsonv.Object {
				w.save(w.typeError(GoKind(v.Kind), goStruct, w.goType(s)))
				return
			}
			for i := range v.Obj {
				m := &v.Obj[i]
				w.push(pathStep{key: m.Key, index: -1, inMap: true})
				w.value(&m.Value, rs.AdditionalProperties, goStruct)
				w.duplicate()
				w.pop()
			}
		}
	case "array":
		if v.Kind != jsonv.Array {
			w.save(w.typeError(GoKind(v.Kind), goStruct, w.goType(s)))
			return
		}
		for i := range v.Arr {
			w.push(pathStep{index: i})
			w.value(&v.Arr[i], rs.Items, goStruct)
			w.pop()
		}
	case "string":
		switch {
		case rs.Format == "byte" && v.Kind == jsonv.String:
			if _, err := base64.StdEncoding.DecodeString(v.Str); err != nil {
				w.save(err.Error())
			}
		case rs.Format == "byte" && v.Kind == jsonv.Array:
			for i := range v.Arr {
				if what := intProblem(&v.Arr[i], -8); what != "" {
					w.save(w.typeError(what, goStruct, "uint8"))
				}
			}
		case v.Kind != jsonv.String:
			w.save(w.typeError(GoKind(v.Kind), goStruct, w.goType(s)))
		}
	case "integer":
		bits := 64
		if rs.Format == "int32" {
			bits = 32
		}
		if what := intProblem(v, bits); what != "" {
			w.save(w.typeError(what, goStruct, w.goType(s)))
		}
	case "number":
		if v.Kind != jsonv.Number {
			w.save(w.typeError(GoKind(v.Kind), goStruct, "float64"))
		} else if _, err := strconv.ParseFloat(v.Str, 64); err != nil {
			w.save(w.typeError("number "+v.Str, goStruct, "float64"))
		}
	case "boolean":
		if v.Kind != jsonv.Bool {
			w.save(w.typeError(GoKind(v.Kind), goStruct, "bool"))
		}
	}
}

// save keeps the first plain decoding error; the walk goes on.
func (w *SchemaWalk) save(msg string) {
	if w.Err == "" {
		w.Err = msg
	}
}

// stop records an error that ends decoding; it wins over a saved one.
func (w *SchemaWalk) stop(msg string) {
	w.Err, w.fatal = msg, true
}

// typeError words a type mismatch as the Go decoder does.
func (w *SchemaWalk) typeError(what, goStruct, goType string) string {
	return "json: cannot unmarshal " + what + " into Go struct field " + goStruct + "." + w.render(false, false) + " of type " + goType
}

// GoKind names a JSON type as the Go decoder's errors do.
func GoKind(k jsonv.Kind) string {
	if k == jsonv.Bool {
		return "bool"
	}
	return k.String()
}

// intProblem says what is wrong with v as a Go integer of the given bits
// ("" when nothing is): its JSON type, or "number <literal>" when it is a
// number that is not an integer or does not fit. Bits below 0 mean an
// unsigned integer of -bits.
func intProblem(v *jsonv.Value, bits int) string {
	if v.Kind != jsonv.Number {
		return GoKind(v.Kind)
	}
	var err error
	if bits < 0 {
		_, err = strconv.ParseUint(v.Str, 10, -bits)
	} else {
		_, err = strconv.ParseInt(v.Str, 10, bits)
	}
	if err != nil {
		return "number " + v.Str
	}
	return ""
}

// goType names the Go type the real server decodes a field of schema s
// into, as its errors write it.
func (w *SchemaWalk) goType(s *openapi.Schema) string {
	return schemaGoType(w.defs, s, 0)
}

func schemaGoType(defs *openapi.Definitions, s *openapi.Schema, depth int) string {
	if s == nil || depth > 8 {
		return "interface {}"
	}
	if s.Ref != "" {
		return packageName(s.Ref) + "." + structName(s.Ref)
	}
	switch s.Type {
	case "array":
		return "[]" + schemaGoType(defs, s.Items, depth+1)
	case "object":
		if s.AdditionalProperties != nil {
			return "map[string]" + schemaGoType(defs, s.AdditionalProperties, depth+1)
		}
		return "map[string]interface {}"
	case "string":
		if s.Format == "byte" {
			return "[]uint8"
		}
		return "string"
	case "integer":
		if s.Format == "int32" {
			return "int32"
		}
		return "int64"
	case "number":
		return "float64"
	case "boolean":
		return "bool"
	}
	return "interface {}"
}

// structName is the Go type of a definition: its last dotted segment
// ("io.k8s.api.apps.v1.DeploymentSpec" → "DeploymentSpec").
func structName(def string) string {
	return def[strings.LastIndexByte(def, '.')+1:]
}

// packageName is the Go package of a definition: the segment before the
// type ("io.k8s.api.apps.v1.DeploymentSpec" → "v1").
func packageName(def string) string {
	i := strings.LastIndexByte(def, '.')
	if i < 0 {
		return ""
	}
	pkg := def[:i]
	return pkg[strings.LastIndexByte(pkg, '.')+1:]
}

// CheckTypes walks a decoded body against the schema of res's kind at
// version. A kind the built-in schemas do not
// know (a custom resource) has its metadata checked alone.
func CheckTypes(res *registry.Resource, version string, doc *jsonv.Value, duplicates []string) *SchemaWalk {
	defs := openapi.Builtin()
	w := newSchemaWalk(defs, duplicates)
	if name, schema, ok := defs.ForKind(openapi.GVK{Group: res.Group, Version: version, Kind: res.Kind}); ok {
		w.object(doc, schema, structName(name))
		return w
	}
	if i := doc.Index("metadata"); i >= 0 && doc.Obj[i].Value.Kind == jsonv.Object {
		// A custom resource's metadata is decoded on its own, so the
		// real server's type errors name ObjectMeta.labels, not
		// ObjectMeta.metadata.labels.
		w.prefix = "metadata"
		w.object(&doc.Obj[i].Value, &openapi.Schema{Ref: defObjectMeta}, structName(defObjectMeta))
	}
	if res.Custom {
		// Fields outside metadata belong to the CRD's schema
		// (custom.go), which reports no duplicates.
		w.dups = nil
	}
	return w
}
