package structural

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Rules returns what the schema (a CRD version's openAPIV3Schema, as
// JSON) breaks of the rules every node of a CRD schema keeps besides
// being structural: the keywords a CRD may not use (id, $ref,
// definitions, …), the types it may name, defaults where none may be,
// the list and map extensions and what they require of their items, and
// the form of each x-kubernetes-validations entry. Each error is in the
// real server's words at its place under path; nil when there is none.
//
// The real server relaxes a rule on update when the stored CRD already
// broke it. This server applies every rule to every write, so no stored
// CRD breaks one and the two agree.
func Rules(raw []byte, path string) []apistatus.FieldError {
	doc, err := jsonv.Parse(raw)
	if err != nil || doc.Value.Kind != jsonv.Object {
		return nil
	}
	var errs []apistatus.FieldError
	add := func(e apistatus.FieldError) { errs = append(errs, e) }
	if flag(&doc.Value, "nullable") {
		add(apistatus.FieldForbidden(path+".nullable", "nullable cannot be true at the root"))
	}
	rules(&doc.Value, ruleScope{root: true}, path, add, 0)
	return errs
}

// ruleScope is what a node's place in the schema changes about its
// rules: the root, inside an object's metadata (of the resource or of an
// embedded one), and why a default may not be set (empty: it may).
type ruleScope struct {
	root, insideMeta bool
	noDefault        string
}

// schemaTypes are the types a CRD schema may name.
var schemaTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// unsupported are the JSON Schema keywords a CRD schema may not use.
var unsupported = []struct{ key, message string }{
	{"id", "id is not supported"},
	{"additionalItems", "additionalItems is not supported"},
	{"patternProperties", "patternProperties is not supported"},
	{"definitions", "definitions is not supported"},
	{"dependencies", "dependencies is not supported"},
	{"$ref", "$ref is not supported"},
}

// rules checks the node v at path and every schema under it.
func rules(v *jsonv.Value, sc ruleScope, path string, add func(apistatus.FieldError), depth int) {
	if v == nil || v.Kind != jsonv.Object || depth > 64 {
		return
	}
	typ := typeOf(v)
	keywordRules(v, typ, sc, path, add)
	props := v.Get("properties")
	if ap := v.Get("additionalProperties"); ap != nil {
		if props != nil && len(props.Obj) > 0 && (ap.Kind == jsonv.Object || ap.Kind == jsonv.Bool && !ap.B) {
			add(apistatus.FieldForbidden(path+".additionalProperties", "additionalProperties and properties are mutual exclusive"))
		}
		sub := sc
		sub.root = false
		if sc.insideMeta {
			// Pruning a map entry without a value is ambiguous.
			sub.noDefault = "inside additionalProperties applying to object metadata"
		}
		rules(ap, sub, path+".additionalProperties", add, depth+1)
	}
	if props != nil && props.Kind == jsonv.Object {
		for i := range props.Obj {
			k := props.Obj[i].Key
			sub := sc
			sub.root = false
			if (sc.root || flag(v, "x-kubernetes-embedded-resource")) && (k == "metadata" || k == "kind" || k == "apiVersion") {
				sub.insideMeta = true
				if sc.root {
					sub.noDefault = "in top-level " + k
				}
			}
			rules(&props.Obj[i].Value, sub, path+".properties["+k+"]", add, depth+1)
		}
	}
	nestedScope := sc
	nestedScope.root = false
	rules(v.Get("not"), nestedScope, path+".not", add, depth+1)
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		if list := v.Get(k); list != nil && list.Kind == jsonv.Array {
			for i := range list.Arr {
				rules(&list.Arr[i], nestedScope, path+"."+k+"["+strconv.Itoa(i)+"]", add, depth+1)
			}
		}
	}
	for _, k := range []string{"definitions", "dependencies"} {
		if m := v.Get(k); m != nil && m.Kind == jsonv.Object {
			for i := range m.Obj {
				rules(&m.Obj[i].Value, nestedScope, path+"."+k+"["+m.Obj[i].Key+"]", add, depth+1)
			}
		}
	}
	switch items := v.Get("items"); {
	case items == nil:
	case items.Kind == jsonv.Array:
		for i := range items.Arr {
			rules(&items.Arr[i], nestedScope, path+".items["+strconv.Itoa(i)+"]", add, depth+1)
		}
	default:
		rules(items, nestedScope, path+".items", add, depth+1)
	}
	if p := v.Get("x-kubernetes-preserve-unknown-fields"); p != nil && p.Kind == jsonv.Bool && !p.B {
		add(apistatus.FieldInvalidRaw(path+".x-kubernetes-preserve-unknown-fields", "false", "must be true or undefined"))
	}
	mapTypeRules(v, typ, path, add)
	listTypeRules(v, typ, path, add)
	validationsForm(v, path, add)
}

// keywordRules checks the keywords of one node: its type, a default
// where none may be, the unsupported keywords, items as a list, an
// embedded resource inside metadata and uniqueItems.
func keywordRules(v *jsonv.Value, typ string, sc ruleScope, path string, add func(apistatus.FieldError)) {
	if typ != "" && !slices.Contains(schemaTypes, typ) {
		add(apistatus.FieldNotSupported(path+".type", typ, schemaTypes...))
	}
	if sc.noDefault != "" && v.Get("default") != nil {
		add(apistatus.FieldForbidden(path+".default", "must not be set "+sc.noDefault))
	}
	for _, u := range unsupported {
		x := v.Get(u.key)
		if x == nil || (u.key == "patternProperties" || u.key == "definitions") && len(x.Obj) == 0 || u.key == "id" && x.Str == "" {
			continue
		}
		add(apistatus.FieldForbidden(path+"."+u.key, u.message))
	}
	if typ == "null" {
		add(apistatus.FieldForbidden(path+".type", "type cannot be set to null, use nullable as an alternative"))
	}
	if items := v.Get("items"); items != nil && items.Kind == jsonv.Array && len(items.Arr) > 0 {
		add(apistatus.FieldForbidden(path+".items", "items must be a schema object and not an array"))
	}
	if sc.insideMeta && flag(v, "x-kubernetes-embedded-resource") {
		add(apistatus.FieldForbidden(path+".x-kubernetes-embedded-resource", "must not be used inside of resource meta"))
	}
	if flag(v, "uniqueItems") {
		add(apistatus.FieldForbidden(path+".uniqueItems", "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
}

// mapTypeRules checks x-kubernetes-map-type: only on objects, atomic or
// granular.
func mapTypeRules(v *jsonv.Value, typ, path string, add func(apistatus.FieldError)) {
	mt := v.Get("x-kubernetes-map-type")
	if mt == nil {
		return
	}
	switch {
	case typ == "":
		add(apistatus.FieldRequired(path+".type", "must be object if x-kubernetes-map-type is specified"))
	case typ != "object":
		add(apistatus.FieldInvalid(path+".type", typ, "must be object if x-kubernetes-map-type is specified"))
	}
	if mt.Str != "atomic" && mt.Str != "granular" {
		add(apistatus.FieldNotSupported(path+".x-kubernetes-map-type", mt.Str, "atomic", "granular"))
	}
}

// listTypeRules checks x-kubernetes-list-type and -list-map-keys: only on
// arrays; a set's items atomic; a map's items objects with scalar,
// required-or-defaulted, non-nullable keys.
func listTypeRules(v *jsonv.Value, typ, path string, add func(apistatus.FieldError)) {
	lt, keys := v.Get("x-kubernetes-list-type"), v.Get("x-kubernetes-list-map-keys")
	items := v.Get("items")
	if items != nil && items.Kind != jsonv.Object {
		items = nil
	}
	if lt != nil && typ != "array" {
		if typ == "" {
			add(apistatus.FieldRequired(path+".type", "must be array if x-kubernetes-list-type is specified"))
		} else {
			add(apistatus.FieldInvalid(path+".type", typ, "must be array if x-kubernetes-list-type is specified"))
		}
	} else if lt != nil && lt.Str == "set" && items != nil {
		// An item's own list or map type is shown as JSON, null when
		// absent.
		shown := func(x *jsonv.Value) string {
			if x == nil {
				return "null"
			}
			return strconv.Quote(x.Str)
		}
		switch typeOf(items) {
		case "array":
			if x := items.Get("x-kubernetes-list-type"); x != nil && x.Str != "atomic" {
				add(apistatus.FieldInvalidRaw(path+".items.x-kubernetes-list-type", shown(x), "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		case "object":
			// The real server shows the item's list type here, not its
			// map type.
			if x := items.Get("x-kubernetes-map-type"); x == nil || x.Str != "atomic" {
				add(apistatus.FieldInvalidRaw(path+".items.x-kubernetes-map-type", shown(items.Get("x-kubernetes-list-type")), "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		}
	}
	if lt != nil && lt.Str != "atomic" && lt.Str != "set" && lt.Str != "map" {
		add(apistatus.FieldNotSupported(path+".x-kubernetes-list-type", lt.Str, "atomic", "set", "map"))
	}
	var keyNames []string
	if keys != nil {
		for _, k := range keys.Arr {
			keyNames = append(keyNames, k.Str)
		}
	}
	if len(keyNames) > 0 {
		if lt == nil {
			add(apistatus.FieldRequired(path+".x-kubernetes-list-type", "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if lt.Str != "map" {
			add(apistatus.FieldInvalid(path+".x-kubernetes-list-type", lt.Str, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if lt == nil || lt.Str != "map" && lt.Str != "set" {
		return
	}
	if lt.Str == "map" {
		mapListRules(items, keyNames, path, add)
	}
	if items != nil && flag(items, "nullable") {
		add(apistatus.FieldForbidden(path+".items.nullable", "cannot be nullable when x-kubernetes-list-type is "+lt.Str))
	}
	if lt.Str != "map" || items == nil {
		return
	}
	required := items.Get("required")
	for _, k := range keyNames {
		p := items.Get("properties").Get(k)
		if p == nil {
			continue
		}
		isRequired := false
		if required != nil {
			for _, r := range required.Arr {
				isRequired = isRequired || r.Str == k
			}
		}
		if !isRequired && p.Get("default") == nil {
			add(apistatus.FieldRequired(path+".items.properties["+k+"].default", "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if flag(p, "nullable") {
			add(apistatus.FieldForbidden(path+".items.properties["+k+"].nullable", "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
}

// mapListRules checks what a list of type map requires: keys, and items
// that are objects whose key properties exist, are scalars and are named
// once.
func mapListRules(items *jsonv.Value, keyNames []string, path string, add func(apistatus.FieldError)) {
	if len(keyNames) == 0 {
		add(apistatus.FieldRequired(path+".x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map"))
	}
	if items == nil {
		add(apistatus.FieldRequired(path+".items", "must have a schema if x-kubernetes-list-type is map"))
		return
	}
	if t := typeOf(items); t != "object" {
		add(apistatus.FieldInvalid(path+".items.type", t, "must be object if parent array's x-kubernetes-list-type is map"))
		return
	}
	shownKeys, _ := json.Marshal(keyNames)
	seen := map[string]bool{}
	for _, k := range keyNames {
		if p := items.Get("properties").Get(k); p == nil {
			add(apistatus.FieldInvalidRaw(path+".x-kubernetes-list-map-keys", string(shownKeys), "entries must all be names of item properties"))
		} else if t := typeOf(p); t == "array" || t == "object" {
			// The real server shows the item's type, not the key's.
			add(apistatus.FieldInvalid(path+".items.properties["+k+"].type", "object", "must be a scalar type if parent array's x-kubernetes-list-type is map"))
		}
		if seen[k] {
			add(apistatus.FieldInvalidRaw(path+".x-kubernetes-list-map-keys", string(shownKeys), "must not contain duplicate entries"))
		}
		seen[k] = true
	}
}

// validationReasons are the reasons an x-kubernetes-validations entry may
// give.
var validationReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

// validationsForm checks the form of each x-kubernetes-validations entry:
// a rule, a one-line message (required when the rule spans lines), a
// non-empty messageExpression, a known reason and a fieldPath naming a
// field of the node's schema.
func validationsForm(v *jsonv.Value, path string, add func(apistatus.FieldError)) {
	list := v.Get("x-kubernetes-validations")
	if list == nil || list.Kind != jsonv.Array {
		return
	}
	for i := range list.Arr {
		r := &list.Arr[i]
		at := path + ".x-kubernetes-validations[" + strconv.Itoa(i) + "]"
		str := func(k string) (string, bool) {
			x := r.Get(k)
			if x == nil || x.Kind != jsonv.String {
				return "", false
			}
			return x.Str, true
		}
		rule, _ := str("rule")
		msg, _ := str("message")
		rule, trimmedMsg := strings.TrimSpace(rule), strings.TrimSpace(msg)
		switch {
		case rule == "":
			add(apistatus.FieldRequired(at+".rule", "rule is not specified"))
		case msg != "" && trimmedMsg == "":
			add(apistatus.FieldInvalid(at+".message", msg, "must be non-empty if specified"))
		case strings.ContainsAny(trimmedMsg, "\n\r"):
			add(apistatus.FieldInvalid(at+".message", msg, "must not contain line breaks"))
		case strings.ContainsAny(rule, "\n\r") && trimmedMsg == "":
			add(apistatus.FieldRequired(at+".message", "message must be specified if rule contains line breaks"))
		}
		if me, _ := str("messageExpression"); me != "" && strings.TrimSpace(me) == "" {
			add(apistatus.FieldRequired(at+".messageExpression", "messageExpression must be non-empty if specified"))
		}
		if reason, ok := str("reason"); ok && !slices.Contains(validationReasons, reason) {
			add(apistatus.FieldNotSupported(at+".reason", reason, validationReasons...))
		}
		fp, _ := str("fieldPath")
		switch {
		case fp == "":
		case strings.TrimSpace(fp) == "":
			add(apistatus.FieldInvalid(at+".fieldPath", fp, "must be non-empty if specified"))
		case strings.ContainsAny(fp, "\n\r"):
			add(apistatus.FieldInvalid(at+".fieldPath", fp, "must not contain line breaks"))
		case !fieldPathValid(v, fp):
			add(apistatus.FieldInvalid(at+".fieldPath", fp, "must be a valid path"))
		}
	}
}

// fieldPathValid reports whether fp (".spec.x", ".labels['a.b']") names,
// step by step, a property or a map key of the schema s: dots name
// fields, brackets hold a single-quoted name, and a step into an object
// with neither properties nor additionalProperties fails.
func fieldPathValid(s *jsonv.Value, fp string) bool {
	for fp != "" {
		var name string
		switch fp[0] {
		case '.':
			rest := fp[1:]
			end := strings.IndexAny(rest, ".[]")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return false
			}
			name, fp = rest[:end], rest[end:]
		case '[':
			rest := fp[1:]
			if len(rest) < 2 || rest[0] != '\'' {
				return false
			}
			end := 1
			for end < len(rest) && (rest[end] != '\'' || rest[end-1] == '\\') {
				end++
			}
			if end+1 >= len(rest) || rest[end+1] != ']' {
				return false
			}
			name = strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(rest[1:end])
			fp = rest[end+2:]
		default:
			return false
		}
		props, ap := s.Get("properties"), s.Get("additionalProperties")
		switch {
		case props != nil && props.Kind == jsonv.Object:
			s = props.Get(name)
			if s == nil {
				return false
			}
		case ap != nil && ap.Kind == jsonv.Object:
			s = ap
		default:
			return false
		}
	}
	return true
}
