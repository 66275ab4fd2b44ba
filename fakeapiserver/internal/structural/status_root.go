package structural

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// With the status subresource on, a custom resource's status is
// validated by the schema's properties.status alone, so the root of the
// schema may only say what stays true of that part: the real server
// refuses any other keyword there. It walks the root's keywords in the
// order of its internal schema type and stops at the first it refuses,
// so a schema gets at most one of these errors.

// rootKeyword is one keyword of a schema in the real server's internal
// order: its name in JSON and its Go field name, which the refusal's
// message and rendered value use.
type rootKeyword struct {
	key, field string
	kind       keywordKind
}

// keywordKind is how a keyword's value is held in the internal type,
// which decides how it is rendered and when it counts as unset.
type keywordKind int

const (
	kwString       keywordKind = iota // string: unset when empty
	kwStringPtr                       // *string
	kwBool                            // bool: unset when false
	kwBoolPtr                         // *bool
	kwFloatPtr                        // *float64
	kwIntPtr                          // *int64
	kwJSONPtr                         // *JSON: any value
	kwJSONList                        // []JSON
	kwStrings                         // []string
	kwItems                           // *JSONSchemaPropsOrArray
	kwSchemas                         // []JSONSchemaProps
	kwSchemaPtr                       // *JSONSchemaProps
	kwSchemaMap                       // map[string]JSONSchemaProps
	kwSchemaOrBool                    // *JSONSchemaPropsOrBool
	kwDependencies                    // map[string]JSONSchemaPropsOrStringArray
	kwExternalDocs                    // *ExternalDocumentation
	kwRules                           // ValidationRules
)

// internalKeywords are the internal schema type's fields, in order.
var internalKeywords = []rootKeyword{
	{"id", "ID", kwString},
	{"$schema", "Schema", kwString},
	{"$ref", "Ref", kwStringPtr},
	{"description", "Description", kwString},
	{"type", "Type", kwString},
	{"nullable", "Nullable", kwBool},
	{"format", "Format", kwString},
	{"title", "Title", kwString},
	{"default", "Default", kwJSONPtr},
	{"maximum", "Maximum", kwFloatPtr},
	{"exclusiveMaximum", "ExclusiveMaximum", kwBool},
	{"minimum", "Minimum", kwFloatPtr},
	{"exclusiveMinimum", "ExclusiveMinimum", kwBool},
	{"maxLength", "MaxLength", kwIntPtr},
	{"minLength", "MinLength", kwIntPtr},
	{"pattern", "Pattern", kwString},
	{"maxItems", "MaxItems", kwIntPtr},
	{"minItems", "MinItems", kwIntPtr},
	{"uniqueItems", "UniqueItems", kwBool},
	{"multipleOf", "MultipleOf", kwFloatPtr},
	{"enum", "Enum", kwJSONList},
	{"maxProperties", "MaxProperties", kwIntPtr},
	{"minProperties", "MinProperties", kwIntPtr},
	{"required", "Required", kwStrings},
	{"items", "Items", kwItems},
	{"allOf", "AllOf", kwSchemas},
	{"oneOf", "OneOf", kwSchemas},
	{"anyOf", "AnyOf", kwSchemas},
	{"not", "Not", kwSchemaPtr},
	{"properties", "Properties", kwSchemaMap},
	{"additionalProperties", "AdditionalProperties", kwSchemaOrBool},
	{"patternProperties", "PatternProperties", kwSchemaMap},
	{"dependencies", "Dependencies", kwDependencies},
	{"additionalItems", "AdditionalItems", kwSchemaOrBool},
	{"definitions", "Definitions", kwSchemaMap},
	{"externalDocs", "ExternalDocs", kwExternalDocs},
	{"example", "Example", kwJSONPtr},
	{"x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields", kwBoolPtr},
	{"x-kubernetes-embedded-resource", "XEmbeddedResource", kwBool},
	{"x-kubernetes-int-or-string", "XIntOrString", kwBool},
	{"x-kubernetes-list-map-keys", "XListMapKeys", kwStrings},
	{"x-kubernetes-list-type", "XListType", kwStringPtr},
	{"x-kubernetes-map-type", "XMapType", kwStringPtr},
	{"x-kubernetes-validations", "XValidations", kwRules},
}

// allowedAtStatusRoot are the fields the root may set with the status
// subresource on, in the real server's order (its message lists them).
var allowedAtStatusRoot = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum",
	"MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties",
	"ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// StatusRootRules returns the real server's refusal of a root keyword
// that a schema of a version with the status subresource may not set:
// a type other than object, or a keyword outside allowedAtStatusRoot,
// the first such in the internal order (nil when there is none). raw is
// the version's openAPIV3Schema, path its place in the CRD.
func StatusRootRules(raw []byte, path string) []apistatus.FieldError {
	doc, err := jsonv.Parse(raw)
	if err != nil || doc.Value.Kind != jsonv.Object {
		return nil
	}
	root := &doc.Value
	for _, k := range internalKeywords {
		v := root.Get(k.key)
		if !keywordSet(v, k.kind) {
			continue
		}
		if k.field == "Type" {
			if v.Str != "object" {
				return []apistatus.FieldError{apistatus.FieldInvalid(path+".type", v.Str,
					`only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
			continue
		}
		if !slices.Contains(allowedAtStatusRoot, k.field) {
			return []apistatus.FieldError{apistatus.FieldInvalidRaw(path, string(appendInternalSchema(nil, root)),
				fmt.Sprintf("only [%s] fields are allowed at the root of the schema if the status subresource is enabled", strings.Join(allowedAtStatusRoot, " ")))}
		}
	}
	return nil
}

// keywordSet reports whether a keyword's value v is other than the
// internal field's zero value.
func keywordSet(v *jsonv.Value, kind keywordKind) bool {
	if v == nil {
		return false
	}
	switch kind {
	case kwString:
		return v.Kind == jsonv.String && v.Str != ""
	case kwBool:
		return v.Kind == jsonv.Bool && v.B
	case kwJSONPtr:
		// A pointer to a value, null included.
		return true
	}
	return v.Kind != jsonv.Null
}

// appendInternalSchema renders the schema v as the real server prints
// its internal schema type in an error: every field by its Go name, in
// order, unset ones as their zero values.
func appendInternalSchema(buf []byte, v *jsonv.Value) []byte {
	buf = append(buf, '{')
	for i, k := range internalKeywords {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendGoString(buf, k.field)
		buf = append(buf, ':')
		buf = appendKeyword(buf, v.Get(k.key), k.kind)
	}
	return append(buf, '}')
}

// appendKeyword renders one field of the internal schema type.
func appendKeyword(buf []byte, v *jsonv.Value, kind keywordKind) []byte {
	if v != nil && v.Kind == jsonv.Null && kind != kwJSONPtr {
		v = nil
	}
	switch kind {
	case kwString:
		s := ""
		if v != nil {
			s = v.Str
		}
		return appendGoString(buf, s)
	case kwBool:
		return strconv.AppendBool(buf, v != nil && v.B)
	case kwJSONPtr:
		if v == nil {
			return append(buf, "null"...)
		}
		return appendGoJSON(buf, v)
	case kwFloatPtr:
		if v == nil {
			return append(buf, "null"...)
		}
		f, _ := strconv.ParseFloat(v.Str, 64)
		b, _ := json.Marshal(f)
		return append(buf, b...)
	case kwItems:
		if v == nil {
			return append(buf, "null"...)
		}
		if v.Kind == jsonv.Array {
			buf = append(buf, `{"Schema":null,"JSONSchemas":`...)
			buf = appendSchemaList(buf, v)
			return append(buf, '}')
		}
		buf = append(buf, `{"Schema":`...)
		buf = appendInternalSchema(buf, v)
		return append(buf, `,"JSONSchemas":null}`...)
	case kwSchemas:
		if v == nil {
			return append(buf, "null"...)
		}
		return appendSchemaList(buf, v)
	case kwSchemaPtr:
		if v == nil {
			return append(buf, "null"...)
		}
		return appendInternalSchema(buf, v)
	case kwSchemaMap:
		if v == nil {
			return append(buf, "null"...)
		}
		return appendSortedMap(buf, v, appendInternalSchema)
	case kwSchemaOrBool:
		if v == nil {
			return append(buf, "null"...)
		}
		if v.Kind == jsonv.Bool {
			return fmt.Appendf(buf, `{"Allows":%t,"Schema":null}`, v.B)
		}
		buf = append(buf, `{"Allows":true,"Schema":`...)
		buf = appendInternalSchema(buf, v)
		return append(buf, '}')
	case kwDependencies:
		if v == nil {
			return append(buf, "null"...)
		}
		return appendSortedMap(buf, v, func(buf []byte, d *jsonv.Value) []byte {
			if d.Kind == jsonv.Array {
				buf = append(buf, `{"Schema":null,"Property":`...)
				buf = appendGoJSON(buf, d)
				return append(buf, '}')
			}
			buf = append(buf, `{"Schema":`...)
			buf = appendInternalSchema(buf, d)
			return append(buf, `,"Property":null}`...)
		})
	case kwExternalDocs:
		if v == nil {
			return append(buf, "null"...)
		}
		buf = append(buf, `{"Description":`...)
		buf = appendKeyword(buf, v.Get("description"), kwString)
		buf = append(buf, `,"URL":`...)
		buf = appendKeyword(buf, v.Get("url"), kwString)
		return append(buf, '}')
	case kwRules:
		if v == nil || v.Kind != jsonv.Array {
			return append(buf, "null"...)
		}
		buf = append(buf, '[')
		for i := range v.Arr {
			if i > 0 {
				buf = append(buf, ',')
			}
			r := &v.Arr[i]
			buf = append(buf, `{"Rule":`...)
			buf = appendKeyword(buf, r.Get("rule"), kwString)
			buf = append(buf, `,"Message":`...)
			buf = appendKeyword(buf, r.Get("message"), kwString)
			buf = append(buf, `,"MessageExpression":`...)
			buf = appendKeyword(buf, r.Get("messageExpression"), kwString)
			buf = append(buf, `,"Reason":`...)
			buf = appendKeyword(buf, r.Get("reason"), kwStringPtr)
			buf = append(buf, `,"FieldPath":`...)
			buf = appendKeyword(buf, r.Get("fieldPath"), kwString)
			buf = append(buf, `,"OptionalOldSelf":`...)
			buf = appendKeyword(buf, r.Get("optionalOldSelf"), kwBoolPtr)
			buf = append(buf, '}')
		}
		return append(buf, ']')
	}
	// Pointers to scalars and lists of strings or values: the value
	// itself, or null.
	if v == nil {
		return append(buf, "null"...)
	}
	return appendGoJSON(buf, v)
}

// appendSchemaList renders a list of schemas.
func appendSchemaList(buf []byte, v *jsonv.Value) []byte {
	buf = append(buf, '[')
	for i := range v.Arr {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendInternalSchema(buf, &v.Arr[i])
	}
	return append(buf, ']')
}

// appendSortedMap renders an object's members sorted by name, each value
// by one.
func appendSortedMap(buf []byte, v *jsonv.Value, one func([]byte, *jsonv.Value) []byte) []byte {
	members := slices.Clone(v.Obj)
	slices.SortFunc(members, func(a, b jsonv.Member) int { return strings.Compare(a.Key, b.Key) })
	buf = append(buf, '{')
	for i := range members {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendGoString(buf, members[i].Key)
		buf = append(buf, ':')
		buf = one(buf, &members[i].Value)
	}
	return append(buf, '}')
}

// appendGoJSON renders a JSON value as the real server holds and prints
// a free-form one: objects with their keys sorted, a number as an
// integer when it reads as one and as the shortest float otherwise.
func appendGoJSON(buf []byte, v *jsonv.Value) []byte {
	switch v.Kind {
	case jsonv.Number:
		if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
			return strconv.AppendInt(buf, n, 10)
		}
		f, _ := strconv.ParseFloat(v.Str, 64)
		b, err := json.Marshal(f)
		if err != nil {
			return append(buf, v.Str...)
		}
		return append(buf, b...)
	case jsonv.String:
		return appendGoString(buf, v.Str)
	case jsonv.Array:
		buf = append(buf, '[')
		for i := range v.Arr {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendGoJSON(buf, &v.Arr[i])
		}
		return append(buf, ']')
	case jsonv.Object:
		return appendSortedMap(buf, v, appendGoJSON)
	}
	return jsonv.Append(buf, *v)
}

// appendGoString renders s as encoding/json does.
func appendGoString(buf []byte, s string) []byte {
	return jsonv.AppendString(buf, s)
}
