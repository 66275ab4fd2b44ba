package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	goyaml "sigs.k8s.io/yaml/goyaml.v3"
)

// SwaggerProto encodes a /openapi/v2 document (the JSON Swagger renders)
// as the real server's protobuf answer: the openapi.v2.Document message of
// gnostic, which kube-openapi builds by reading the JSON document and
// marshals with the protobuf library. So, as there: fields go out in field
// number order and proto3 zero values (empty strings, false, 0) not at
// all; named members (definitions, properties, paths, responses,
// vendor extensions) in the document's key order, which is sorted for the
// documents this package renders (encoding/json sorts map keys); a
// default, example, enum value or x- extension is an Any holding the value
// as YAML, as gnostic's YAML encoder writes it. A member gnostic does not
// know, or a value of the wrong type, is an error naming its place, as
// gnostic refuses the document (the real server then has nothing to serve
// in protobuf).
func SwaggerProto(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("openapi v2 document: %w", err)
	}
	e := &protoEncoder{}
	out := e.message(nil, v, pbDocument())
	if e.err != nil {
		return nil, e.err
	}
	return out, nil
}

// protoEncoder encodes one document; err is its first error.
type protoEncoder struct {
	err error
}

// protoPath is where a value is in the document, built into a string only
// for an error.
type protoPath struct {
	parent *protoPath
	key    string
}

func (p *protoPath) child(key string) *protoPath { return &protoPath{parent: p, key: key} }

func (p *protoPath) String() string {
	var keys []string
	for ; p != nil; p = p.parent {
		keys = append(keys, p.key)
	}
	slices.Reverse(keys)
	if len(keys) == 0 {
		return "the document"
	}
	return strings.Join(keys, ".")
}

func (e *protoEncoder) fail(p *protoPath, format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("openapi v2 document: %s: %s", p, fmt.Sprintf(format, args...))
	}
}

// message encodes v as the message m describes (without its tag and
// length).
func (e *protoEncoder) message(p *protoPath, v any, m *protoMessage) []byte {
	if m.oneof != nil {
		return m.oneof(e, p, v)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		e.fail(p, "%s: want an object, not %s", m.name, jsonKind(v))
		return nil
	}
	for k := range obj {
		if !m.open && !m.knows(k) {
			e.fail(p, "%s: unknown member %q", m.name, k)
			return nil
		}
	}
	for _, k := range m.required {
		if _, ok := obj[k]; !ok {
			e.fail(p, "%s: missing required member %q", m.name, k)
			return nil
		}
	}
	var b []byte
	for _, f := range m.fields {
		switch f.kind {
		case fExtensions:
			for _, k := range sortedKeys(obj) {
				if strings.HasPrefix(k, "x-") {
					b = appendNamed(b, f.num, k, e.anyValue(p.child(k), obj[k]))
				}
			}
		case fEntries:
			for _, k := range sortedKeys(obj) {
				if f.pattern == nil && !m.hasField(k) || f.pattern != nil && f.pattern.MatchString(k) {
					b = appendNamed(b, f.num, k, e.message(p.child(k), obj[k], f.msg))
				}
			}
		default:
			if val, ok := obj[f.key]; ok {
				b = e.field(b, p.child(f.key), f, val)
			}
		}
	}
	return b
}

// field appends one member's field.
func (e *protoEncoder) field(b []byte, p *protoPath, f protoField, v any) []byte {
	switch f.kind {
	case fString:
		s, ok := v.(string)
		if !ok {
			e.fail(p, "want a string, not %s", jsonKind(v))
		} else if s != "" {
			b = protowire.AppendTag(b, f.num, protowire.BytesType)
			b = protowire.AppendString(b, s)
		}
	case fBool:
		t, ok := v.(bool)
		if !ok {
			e.fail(p, "want a boolean, not %s", jsonKind(v))
		} else if t {
			b = protowire.AppendTag(b, f.num, protowire.VarintType)
			b = protowire.AppendVarint(b, 1)
		}
	case fDouble:
		n, ok := v.(json.Number)
		x, err := n.Float64()
		if !ok || err != nil {
			e.fail(p, "want a number, not %s", jsonKind(v))
		} else if x != 0 {
			b = protowire.AppendTag(b, f.num, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, math.Float64bits(x))
		}
	case fInt64:
		n, ok := v.(json.Number)
		x, err := strconv.ParseInt(string(n), 10, 64)
		if !ok || err != nil {
			e.fail(p, "want an integer, not %s", jsonKind(v))
		} else if x != 0 {
			b = protowire.AppendTag(b, f.num, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(x))
		}
	case fStrings:
		for i, s := range e.list(p, v) {
			str, ok := s.(string)
			if !ok {
				e.fail(p.child(strconv.Itoa(i)), "want a string, not %s", jsonKind(s))
				break
			}
			b = protowire.AppendTag(b, f.num, protowire.BytesType)
			b = protowire.AppendString(b, str)
		}
	case fAny:
		b = protowire.AppendTag(b, f.num, protowire.BytesType)
		b = protowire.AppendBytes(b, e.anyValue(p, v))
	case fAnys:
		for i, x := range e.list(p, v) {
			b = protowire.AppendTag(b, f.num, protowire.BytesType)
			b = protowire.AppendBytes(b, e.anyValue(p.child(strconv.Itoa(i)), x))
		}
	case fMessage:
		b = protowire.AppendTag(b, f.num, protowire.BytesType)
		b = protowire.AppendBytes(b, e.message(p, v, f.msg))
	case fMessages:
		for i, x := range e.list(p, v) {
			b = protowire.AppendTag(b, f.num, protowire.BytesType)
			b = protowire.AppendBytes(b, e.message(p.child(strconv.Itoa(i)), x, f.msg))
		}
	}
	return b
}

// list is v as a JSON array.
func (e *protoEncoder) list(p *protoPath, v any) []any {
	l, ok := v.([]any)
	if !ok {
		e.fail(p, "want an array, not %s", jsonKind(v))
	}
	return l
}

// appendNamed appends a Named* pair: its name (field 1) and its encoded
// value (field 2).
func appendNamed(b []byte, num protowire.Number, name string, value []byte) []byte {
	var pair []byte
	if name != "" {
		pair = protowire.AppendTag(pair, 1, protowire.BytesType)
		pair = protowire.AppendString(pair, name)
	}
	pair = protowire.AppendTag(pair, 2, protowire.BytesType)
	pair = protowire.AppendBytes(pair, value)
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, pair)
}

// anyValue is the Any message of a value: its YAML (field 2).
func (e *protoEncoder) anyValue(p *protoPath, v any) []byte {
	y, err := goyaml.Marshal(yamlNode(v))
	if err != nil {
		e.fail(p, "%v", err)
		return nil
	}
	b := protowire.AppendTag(nil, 2, protowire.BytesType)
	return protowire.AppendBytes(b, y)
}

// yamlNode is a decoded JSON value as the YAML node reading its JSON text
// gives, less the JSON styles (gnostic clears them before it writes the
// node out): so strings keep their tag, and are quoted where plain text
// would read as another type.
func yamlNode(v any) *goyaml.Node {
	switch x := v.(type) {
	case map[string]any:
		n := &goyaml.Node{Kind: goyaml.MappingNode, Tag: "!!map"}
		for _, k := range sortedKeys(x) {
			n.Content = append(n.Content, yamlNode(k), yamlNode(x[k]))
		}
		return n
	case []any:
		n := &goyaml.Node{Kind: goyaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	case string:
		return &goyaml.Node{Kind: goyaml.ScalarNode, Tag: "!!str", Value: x}
	case json.Number:
		tag := "!!float"
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			tag = "!!int"
		}
		return &goyaml.Node{Kind: goyaml.ScalarNode, Tag: tag, Value: string(x)}
	case bool:
		return &goyaml.Node{Kind: goyaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	default:
		return &goyaml.Node{Kind: goyaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// jsonKind names a decoded JSON value's type for an error.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}

// stringAt is the string member k of v, "" if none.
func stringAt(v any, k string) string {
	m, _ := v.(map[string]any)
	s, _ := m[k].(string)
	return s
}

// oneofField encodes v as the message m inside field num of the
// enclosing oneof message.
func (e *protoEncoder) oneofField(p *protoPath, num protowire.Number, v any, m *protoMessage) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, e.message(p, v, m))
}
