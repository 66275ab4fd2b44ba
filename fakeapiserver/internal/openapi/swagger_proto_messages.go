package openapi

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// The messages of gnostic's openapi.v2 package SwaggerProto writes: for
// each, the JSON members it holds with their field numbers and kinds, in
// field number order (the numbers are the wire format kubectl and
// client-go decode, from gnostic's OpenAPIv2.proto). A message chosen by
// its content (a parameter by where it goes, a reference or not) has a
// oneof function instead.

// fieldKind is how a member is written.
type fieldKind uint8

const (
	fString     fieldKind = iota // a string
	fBool                        // a boolean
	fDouble                      // a number, as a double
	fInt64                       // an integer, as an int64
	fStrings                     // an array of strings, one field each
	fAny                         // any value, as an Any message
	fAnys                        // an array, one Any each
	fMessage                     // an object, as msg
	fMessages                    // an array, one msg each
	fExtensions                  // every x- member, one NamedAny each
	fEntries                     // members named by pattern (nil: every member not a field), one Named<msg> each
)

// protoField is one field of a message.
type protoField struct {
	key     string
	num     protowire.Number
	kind    fieldKind
	msg     *protoMessage
	pattern *regexp.Regexp
}

// protoMessage is one message.
type protoMessage struct {
	name     string
	fields   []protoField
	required []string
	// open: members it does not know are left out, not refused.
	open  bool
	oneof func(e *protoEncoder, p *protoPath, v any) []byte
}

func (m *protoMessage) hasField(k string) bool {
	return slices.ContainsFunc(m.fields, func(f protoField) bool { return f.key == k && f.kind != fExtensions && f.kind != fEntries })
}

// knows reports whether the message has a place for member k.
func (m *protoMessage) knows(k string) bool {
	if m.hasField(k) {
		return true
	}
	for _, f := range m.fields {
		switch {
		case f.kind == fExtensions && strings.HasPrefix(k, "x-"):
			return true
		case f.kind == fEntries && (f.pattern == nil || f.pattern.MatchString(k)):
			return true
		}
	}
	return false
}

// pbDocument is the Document message, built once.
var pbDocument = sync.OnceValue(buildProtoMessages)

func str(key string, num protowire.Number) protoField { return protoField{key: key, num: num} }

func boolean(key string, num protowire.Number) protoField {
	return protoField{key: key, num: num, kind: fBool}
}

func sub(key string, num protowire.Number, kind fieldKind, msg *protoMessage) protoField {
	return protoField{key: key, num: num, kind: kind, msg: msg}
}

func ext(num protowire.Number) protoField { return protoField{num: num, kind: fExtensions} }

// entries is a message of named members only (Definitions, Properties …).
func entries(name string, value *protoMessage) *protoMessage {
	return &protoMessage{name: name, fields: []protoField{{num: 1, kind: fEntries, msg: value}}}
}

// primitiveFields are the members a non-body parameter, a header and
// primitive items share (type to multipleOf), numbered from first.
func primitiveFields(first protowire.Number, items *protoMessage) []protoField {
	return []protoField{
		str("type", first), str("format", first+1), sub("items", first+2, fMessage, items),
		str("collectionFormat", first+3), {key: "default", num: first + 4, kind: fAny},
		{key: "maximum", num: first + 5, kind: fDouble}, boolean("exclusiveMaximum", first+6),
		{key: "minimum", num: first + 7, kind: fDouble}, boolean("exclusiveMinimum", first+8),
		{key: "maxLength", num: first + 9, kind: fInt64}, {key: "minLength", num: first + 10, kind: fInt64},
		str("pattern", first+11), {key: "maxItems", num: first + 12, kind: fInt64},
		{key: "minItems", num: first + 13, kind: fInt64}, boolean("uniqueItems", first+14),
		{key: "enum", num: first + 15, kind: fAnys}, {key: "multipleOf", num: first + 16, kind: fDouble},
	}
}

// subSchema is a non-body parameter's message: required, in,
// description, name, allowEmptyValue where it has one, then the primitive
// members and its extensions.
func subSchema(name string, allowEmpty bool, items *protoMessage) *protoMessage {
	fields := []protoField{boolean("required", 1), str("in", 2), str("description", 3), str("name", 4)}
	first := protowire.Number(5)
	if allowEmpty {
		fields = append(fields, boolean("allowEmptyValue", 5))
		first = 6
	}
	fields = append(fields, primitiveFields(first, items)...)
	return &protoMessage{name: name, fields: append(fields, ext(first+17))}
}

// choose is a oneof message: pick names the field number and message of
// v's case (0 for none: an error).
func choose(name string, pick func(v any) (protowire.Number, *protoMessage)) *protoMessage {
	return &protoMessage{name: name, oneof: func(e *protoEncoder, p *protoPath, v any) []byte {
		num, m := pick(v)
		if m == nil {
			e.fail(p, "not a valid %s", name)
			return nil
		}
		return e.oneofField(p, num, v, m)
	}}
}

func hasKey(v any, k string) bool {
	m, ok := v.(map[string]any)
	_, has := m[k]
	return ok && has
}

func buildProtoMessages() *protoMessage {
	externalDocs := &protoMessage{name: "ExternalDocs", fields: []protoField{str("description", 1), str("url", 2), ext(3)}}
	items := &protoMessage{name: "PrimitivesItems"}
	items.fields = append(primitiveFields(1, items), ext(18))
	schema := &protoMessage{name: "Schema"}
	schemaItems := &protoMessage{name: "ItemsItem", oneof: func(e *protoEncoder, p *protoPath, v any) []byte {
		if list, ok := v.([]any); ok {
			var b []byte
			for _, s := range list {
				b = append(b, e.oneofField(p, 1, s, schema)...)
			}
			return b
		}
		return e.oneofField(p, 1, v, schema)
	}}
	additional := &protoMessage{name: "AdditionalPropertiesItem", oneof: func(e *protoEncoder, p *protoPath, v any) []byte {
		if t, ok := v.(bool); ok {
			b := protowire.AppendTag(nil, 2, protowire.VarintType)
			return protowire.AppendVarint(b, protowire.EncodeBool(t))
		}
		return e.oneofField(p, 1, v, schema)
	}}
	typeItem := &protoMessage{name: "TypeItem", oneof: func(e *protoEncoder, p *protoPath, v any) []byte {
		if s, ok := v.(string); ok {
			v = []any{s}
		}
		return e.field(nil, p, protoField{num: 1, kind: fStrings}, v)
	}}
	xml := &protoMessage{name: "Xml", fields: []protoField{str("name", 1), str("namespace", 2), str("prefix", 3), boolean("attribute", 4), boolean("wrapped", 5), ext(6)}}
	schema.fields = []protoField{
		str("$ref", 1), str("format", 2), str("title", 3), str("description", 4), {key: "default", num: 5, kind: fAny},
		{key: "multipleOf", num: 6, kind: fDouble}, {key: "maximum", num: 7, kind: fDouble}, boolean("exclusiveMaximum", 8),
		{key: "minimum", num: 9, kind: fDouble}, boolean("exclusiveMinimum", 10),
		{key: "maxLength", num: 11, kind: fInt64}, {key: "minLength", num: 12, kind: fInt64}, str("pattern", 13),
		{key: "maxItems", num: 14, kind: fInt64}, {key: "minItems", num: 15, kind: fInt64}, boolean("uniqueItems", 16),
		{key: "maxProperties", num: 17, kind: fInt64}, {key: "minProperties", num: 18, kind: fInt64},
		{key: "required", num: 19, kind: fStrings}, {key: "enum", num: 20, kind: fAnys},
		sub("additionalProperties", 21, fMessage, additional), sub("type", 22, fMessage, typeItem),
		sub("items", 23, fMessage, schemaItems), sub("allOf", 24, fMessages, schema),
		sub("properties", 25, fMessage, entries("Properties", schema)), str("discriminator", 26),
		boolean("readOnly", 27), sub("xml", 28, fMessage, xml), sub("externalDocs", 29, fMessage, externalDocs),
		{key: "example", num: 30, kind: fAny}, ext(31),
	}
	fileSchema := &protoMessage{name: "FileSchema", required: []string{"type"}, fields: []protoField{
		str("format", 1), str("title", 2), str("description", 3), {key: "default", num: 4, kind: fAny},
		{key: "required", num: 5, kind: fStrings}, str("type", 6), boolean("readOnly", 7),
		sub("externalDocs", 8, fMessage, externalDocs), {key: "example", num: 9, kind: fAny}, ext(10),
	}}
	jsonRef := &protoMessage{name: "JsonReference", open: true, required: []string{"$ref"}, fields: []protoField{str("$ref", 1), str("description", 2)}}
	body := &protoMessage{name: "BodyParameter", required: []string{"in", "name", "schema"}, fields: []protoField{
		str("description", 1), str("name", 2), str("in", 3), boolean("required", 4), sub("schema", 5, fMessage, schema), ext(6),
	}}
	nonBody := map[string]struct {
		num protowire.Number
		msg *protoMessage
	}{
		"header":   {1, subSchema("HeaderParameterSubSchema", false, items)},
		"formData": {2, subSchema("FormDataParameterSubSchema", true, items)},
		"query":    {3, subSchema("QueryParameterSubSchema", true, items)},
		"path":     {4, subSchema("PathParameterSubSchema", false, items)},
	}
	nonBodyParam := choose("NonBodyParameter", func(v any) (protowire.Number, *protoMessage) {
		c, ok := nonBody[stringAt(v, "in")]
		if !ok || !hasKey(v, "name") || !hasKey(v, "type") {
			return 0, nil
		}
		return c.num, c.msg
	})
	param := choose("Parameter", func(v any) (protowire.Number, *protoMessage) {
		if stringAt(v, "in") == "body" {
			return 1, body
		}
		return 2, nonBodyParam
	})
	paramItem := choose("ParametersItem", func(v any) (protowire.Number, *protoMessage) {
		if hasKey(v, "$ref") {
			return 2, jsonRef
		}
		return 1, param
	})
	header := &protoMessage{name: "Header", required: []string{"type"}}
	header.fields = append(primitiveFields(1, items), str("description", 18), ext(19))
	anyValue := &protoMessage{name: "Any", oneof: func(e *protoEncoder, p *protoPath, v any) []byte { return e.anyValue(p, v) }}
	response := &protoMessage{name: "Response", required: []string{"description"}, fields: []protoField{
		str("description", 1),
		sub("schema", 2, fMessage, choose("SchemaItem", func(v any) (protowire.Number, *protoMessage) {
			if stringAt(v, "type") == "file" {
				return 2, fileSchema
			}
			return 1, schema
		})),
		sub("headers", 3, fMessage, entries("Headers", header)), sub("examples", 4, fMessage, entries("Examples", anyValue)), ext(5),
	}}
	responseValue := choose("ResponseValue", func(v any) (protowire.Number, *protoMessage) {
		if hasKey(v, "$ref") {
			return 2, jsonRef
		}
		return 1, response
	})
	responses := &protoMessage{name: "Responses", fields: []protoField{
		{num: 1, kind: fEntries, msg: responseValue, pattern: regexp.MustCompile(`^([0-9]{3})$|^(default)$`)}, ext(2),
	}}
	stringArray := &protoMessage{name: "StringArray", oneof: func(e *protoEncoder, p *protoPath, v any) []byte {
		return e.field(nil, p, protoField{num: 1, kind: fStrings}, v)
	}}
	security := entries("SecurityRequirement", stringArray)
	operation := &protoMessage{name: "Operation", required: []string{"responses"}, fields: []protoField{
		{key: "tags", num: 1, kind: fStrings}, str("summary", 2), str("description", 3),
		sub("externalDocs", 4, fMessage, externalDocs), str("operationId", 5),
		{key: "produces", num: 6, kind: fStrings}, {key: "consumes", num: 7, kind: fStrings},
		sub("parameters", 8, fMessages, paramItem), sub("responses", 9, fMessage, responses),
		{key: "schemes", num: 10, kind: fStrings}, boolean("deprecated", 11),
		sub("security", 12, fMessages, security), ext(13),
	}}
	pathItem := &protoMessage{name: "PathItem", fields: []protoField{
		str("$ref", 1), sub("get", 2, fMessage, operation), sub("put", 3, fMessage, operation),
		sub("post", 4, fMessage, operation), sub("delete", 5, fMessage, operation),
		sub("options", 6, fMessage, operation), sub("head", 7, fMessage, operation),
		sub("patch", 8, fMessage, operation), sub("parameters", 9, fMessages, paramItem), ext(10),
	}}
	paths := &protoMessage{name: "Paths", fields: []protoField{
		ext(1), {num: 2, kind: fEntries, msg: pathItem, pattern: regexp.MustCompile(`^/`)},
	}}
	contact := &protoMessage{name: "Contact", fields: []protoField{str("name", 1), str("url", 2), str("email", 3), ext(4)}}
	license := &protoMessage{name: "License", fields: []protoField{str("name", 1), str("url", 2), ext(3)}}
	info := &protoMessage{name: "Info", required: []string{"title", "version"}, fields: []protoField{
		str("title", 1), str("version", 2), str("description", 3), str("termsOfService", 4),
		sub("contact", 5, fMessage, contact), sub("license", 6, fMessage, license), ext(7),
	}}
	tag := &protoMessage{name: "Tag", fields: []protoField{str("name", 1), str("description", 2), sub("externalDocs", 3, fMessage, externalDocs), ext(4)}}
	return &protoMessage{name: "Document", required: []string{"info", "paths", "swagger"}, fields: []protoField{
		str("swagger", 1), sub("info", 2, fMessage, info), str("host", 3), str("basePath", 4),
		{key: "schemes", num: 5, kind: fStrings}, {key: "consumes", num: 6, kind: fStrings}, {key: "produces", num: 7, kind: fStrings},
		sub("paths", 8, fMessage, paths), sub("definitions", 9, fMessage, entries("Definitions", schema)),
		sub("parameters", 10, fMessage, entries("ParameterDefinitions", param)),
		sub("responses", 11, fMessage, entries("ResponseDefinitions", response)),
		sub("security", 12, fMessages, security),
		sub("securityDefinitions", 13, fMessage, entries("SecurityDefinitions", securityScheme())),
		sub("tags", 14, fMessages, tag), sub("externalDocs", 15, fMessage, externalDocs), ext(16),
	}}
}

// securityScheme is SecurityDefinitionsItem: one message per type (and
// OAuth2 flow).
func securityScheme() *protoMessage {
	scopes := entries("Oauth2Scopes", &protoMessage{name: "string", oneof: func(e *protoEncoder, p *protoPath, v any) []byte {
		s, ok := v.(string)
		if !ok {
			e.fail(p, "want a string, not %s", jsonKind(v))
		}
		return []byte(s)
	}})
	oauth := func(name string, urls ...string) *protoMessage {
		fields := []protoField{str("type", 1), str("flow", 2), sub("scopes", 3, fMessage, scopes)}
		for _, u := range append(urls, "description") {
			fields = append(fields, str(u, protowire.Number(len(fields)+1)))
		}
		return &protoMessage{name: name, fields: append(fields, ext(protowire.Number(len(fields)+1)))}
	}
	cases := map[string]struct {
		num protowire.Number
		msg *protoMessage
	}{
		"basic":              {1, &protoMessage{name: "BasicAuthenticationSecurity", fields: []protoField{str("type", 1), str("description", 2), ext(3)}}},
		"apiKey":             {2, &protoMessage{name: "ApiKeySecurity", required: []string{"in", "name", "type"}, fields: []protoField{str("type", 1), str("name", 2), str("in", 3), str("description", 4), ext(5)}}},
		"oauth2/implicit":    {3, oauth("Oauth2ImplicitSecurity", "authorizationUrl")},
		"oauth2/password":    {4, oauth("Oauth2PasswordSecurity", "tokenUrl")},
		"oauth2/application": {5, oauth("Oauth2ApplicationSecurity", "tokenUrl")},
		"oauth2/accessCode":  {6, oauth("Oauth2AccessCodeSecurity", "authorizationUrl", "tokenUrl")},
	}
	return choose("SecurityDefinitionsItem", func(v any) (protowire.Number, *protoMessage) {
		k := stringAt(v, "type")
		if k == "oauth2" {
			k += "/" + stringAt(v, "flow")
		}
		c := cases[k]
		return c.num, c.msg
	})
}
