package kubeproto

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxMessageDepth bounds the nesting of messages, in both directions.
const maxMessageDepth = 100

// encoder converts a parsed JSON object to protobuf, writing fields in
// number order and every value the way the generated Go marshalers do:
// non-pointer scalars always (zero included), pointers and byte slices
// only when set, nested non-pointer messages always, map entries in key
// order.
type encoder struct {
	out   []byte
	limit int
	depth int
}

// typeError is the error of a JSON value of the wrong type.
func typeError(v *jsonValue, m *message, f *field, want string) error {
	got := [...]string{jNull: "null", jBool: "bool", jNumber: "number", jString: "string", jArray: "array", jObject: "object"}[v.kind]
	return fmt.Errorf("json: cannot unmarshal %s into Go struct field %s.%s of type %s", got, shortName(m.name), f.json, want)
}

func shortName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// messageBody appends the fields of m read from obj (an object or null).
func (e *encoder) messageBody(m *message, obj *jsonValue) error {
	if e.depth++; e.depth > maxMessageDepth {
		return fmt.Errorf("exceeded max depth of %d", maxMessageDepth)
	}
	defer func() { e.depth-- }()
	if len(e.out) > e.limit {
		return errTooLarge
	}
	slots := make([]*jsonValue, len(m.fields))
	if obj != nil && obj.kind == jObject {
		for i := range obj.members {
			if idx, ok := m.byJSON[obj.members[i].name]; ok {
				slots[idx] = &obj.members[i].value
			}
		}
	}
	for _, idx := range m.encodeOrder {
		f := &m.fields[idx]
		if f.has(fInline) {
			var start int
			e.out, start = beginNested(e.out, f.num)
			if err := e.messageBody(f.msg, obj); err != nil {
				return err
			}
			e.out = endNested(e.out, start)
			continue
		}
		if err := e.field(m, f, slots[idx]); err != nil {
			return err
		}
	}
	return nil
}

// field appends one field; v is nil when the JSON object lacks it.
func (e *encoder) field(m *message, f *field, v *jsonValue) error {
	present := v != nil && v.kind != jNull
	switch {
	case f.has(fRepeated):
		if !present {
			return nil
		}
		if v.kind != jArray {
			return typeError(v, m, f, "array")
		}
		for i := range v.elems {
			if err := e.value(m, f, f.num, f.kind, f.msg, &v.elems[i]); err != nil {
				return err
			}
		}
		return nil
	case f.has(fMap):
		if !present {
			return nil
		}
		if v.kind != jObject {
			return typeError(v, m, f, "map")
		}
		return e.mapEntries(m, f, v)
	case f.has(fPointer) || f.kind == kBytes:
		if !present {
			return nil
		}
	}
	if !present {
		v = nil
	}
	return e.value(m, f, f.num, f.kind, f.msg, v)
}

// mapEntries appends a map's entries in key order; a key given twice
// keeps its last value.
func (e *encoder) mapEntries(m *message, f *field, v *jsonValue) error {
	order := make([]int, 0, len(v.members))
	for i := range v.members {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(v.members[a].name, v.members[b].name) })
	for j, i := range order {
		if j+1 < len(order) && v.members[order[j+1]].name == v.members[i].name {
			continue
		}
		var start int
		e.out, start = beginNested(e.out, f.num)
		e.out = appendStringField(e.out, 1, v.members[i].name)
		val := &v.members[i].value
		if val.kind == jNull {
			val = nil
		}
		if !(f.kind == kBytes && val == nil) {
			if err := e.value(m, f, 2, f.kind, f.msg, val); err != nil {
				return err
			}
		}
		e.out = endNested(e.out, start)
	}
	return nil
}

// value appends one value of kind k as field num; v nil means the zero
// value.
func (e *encoder) value(m *message, f *field, num int32, k valueKind, msg *message, v *jsonValue) error {
	if v != nil && v.kind == jNull {
		v = nil
	}
	switch k {
	case kString:
		s := ""
		if v != nil {
			if v.kind != jString {
				return typeError(v, m, f, "string")
			}
			s = v.str
		}
		e.out = appendStringField(e.out, num, s)
	case kBytes:
		var b []byte
		if v != nil {
			if v.kind != jString {
				return typeError(v, m, f, "[]uint8")
			}
			var err error
			if b, err = base64.StdEncoding.DecodeString(v.str); err != nil {
				return fmt.Errorf("json: field %s.%s: %w", shortName(m.name), f.json, err)
			}
		}
		e.out = appendBytesField(e.out, num, b)
	case kBool:
		b := false
		if v != nil {
			if v.kind != jBool {
				return typeError(v, m, f, "bool")
			}
			b = v.raw[0] == 't'
		}
		e.out = appendTag(e.out, num, wireVarint)
		e.out = append(e.out, map[bool]byte{false: 0, true: 1}[b])
	case kInt32, kInt64:
		var n int64
		if v != nil {
			bits, name := 64, "int64"
			if k == kInt32 {
				bits, name = 32, "int32"
			}
			if v.kind != jNumber {
				return typeError(v, m, f, name)
			}
			var err error
			if n, err = strconv.ParseInt(string(v.raw), 10, bits); err != nil {
				return fmt.Errorf("json: cannot unmarshal number %s into Go struct field %s.%s of type %s", v.raw, shortName(m.name), f.json, name)
			}
		}
		e.out = appendVarintField(e.out, num, uint64(n))
	case kFloat64:
		var x float64
		if v != nil {
			if v.kind != jNumber {
				return typeError(v, m, f, "float64")
			}
			var err error
			if x, err = strconv.ParseFloat(string(v.raw), 64); err != nil {
				return fmt.Errorf("json: cannot unmarshal number %s into Go struct field %s.%s of type float64", v.raw, shortName(m.name), f.json)
			}
		}
		e.out = appendTag(e.out, num, wireFixed64)
		e.out = binary.LittleEndian.AppendUint64(e.out, math.Float64bits(x))
	case kMessage:
		if v != nil && v.kind != jObject {
			return typeError(v, m, f, shortName(msg.name))
		}
		var start int
		e.out, start = beginNested(e.out, num)
		if err := e.messageBody(msg, v); err != nil {
			return err
		}
		e.out = endNested(e.out, start)
	default:
		return e.special(m, f, num, k, msg, v)
	}
	return nil
}

// special appends the values whose types have their own JSON form.
func (e *encoder) special(m *message, f *field, num int32, k valueKind, msg *message, v *jsonValue) error {
	var start int
	e.out, start = beginNested(e.out, num)
	var err error
	switch k {
	case kTime, kMicroTime:
		err = e.timestamp(m, f, k, v)
	case kDuration:
		var d time.Duration
		if v != nil {
			if v.kind != jString {
				return typeError(v, m, f, "string")
			}
			if d, err = time.ParseDuration(v.str); err != nil {
				return err
			}
		}
		e.out = appendVarintField(e.out, 1, uint64(d))
	case kQuantity:
		s := "0"
		if v != nil {
			if v.kind != jString && v.kind != jNumber {
				return errQuantityFormat
			}
			// Quantity.UnmarshalJSON strips the quotes without
			// unescaping: an escape sequence is part of the quantity.
			str := string(v.raw)
			if v.kind == jString {
				str = str[1 : len(str)-1]
			}
			if s, err = canonicalQuantity(strings.TrimSpace(str)); err != nil {
				return err
			}
		}
		e.out = appendStringField(e.out, 1, s)
	case kIntOrString:
		err = e.intOrString(m, f, v)
	case kRawExtension, kFieldsV1, kJSON:
		if v != nil {
			e.out = appendBytesField(e.out, 1, v.raw)
		}
	case kStrings:
		err = e.strings(m, f, 1, v)
	case kSchemaOrArray, kSchemaOrBool, kSchemaOrStrings:
		err = e.schemaUnion(m, f, k, msg, v)
	default:
		err = fmt.Errorf("kubeproto: no encoding for value kind %d", k)
	}
	if err != nil {
		return err
	}
	e.out = endNested(e.out, start)
	return nil
}

// timestamp appends the body of a Time (whole seconds, nanos 0) or a
// MicroTime (microseconds); the zero time is an empty message.
func (e *encoder) timestamp(m *message, f *field, k valueKind, v *jsonValue) error {
	if v == nil {
		return nil
	}
	if v.kind != jString {
		return typeError(v, m, f, "string")
	}
	layout := time.RFC3339
	if k == kMicroTime {
		layout = "2006-01-02T15:04:05.000000Z07:00"
	}
	t, err := time.Parse(layout, v.str)
	if err != nil {
		return err
	}
	if t.IsZero() {
		return nil
	}
	nanos := int64(0)
	if k == kMicroTime {
		nanos = int64(time.Duration(t.Nanosecond()).Truncate(time.Microsecond))
	}
	e.out = appendVarintField(e.out, 1, uint64(t.Unix()))
	e.out = appendVarintField(e.out, 2, uint64(nanos))
	return nil
}

// intOrString appends {type, intVal, strVal}: a JSON number is type 0,
// a string type 1.
func (e *encoder) intOrString(m *message, f *field, v *jsonValue) error {
	typ, n, s := int64(0), int64(0), ""
	if v != nil {
		switch v.kind {
		case jString:
			typ, s = 1, v.str
		case jNumber:
			var err error
			if n, err = strconv.ParseInt(string(v.raw), 10, 32); err != nil {
				return fmt.Errorf("json: cannot unmarshal number %s into Go value of type int32", v.raw)
			}
		default:
			return typeError(v, m, f, "IntOrString")
		}
	}
	e.out = appendVarintField(e.out, 1, uint64(typ))
	e.out = appendVarintField(e.out, 2, uint64(n))
	e.out = appendStringField(e.out, 3, s)
	return nil
}

// strings appends the elements of a JSON array of strings as repeated
// field num.
func (e *encoder) strings(m *message, f *field, num int32, v *jsonValue) error {
	if v == nil {
		return nil
	}
	if v.kind != jArray {
		return typeError(v, m, f, "[]string")
	}
	for i := range v.elems {
		el := &v.elems[i]
		switch el.kind {
		case jString:
			e.out = appendStringField(e.out, num, el.str)
		case jNull:
			e.out = appendStringField(e.out, num, "")
		default:
			return typeError(el, m, f, "string")
		}
	}
	return nil
}

// schemaUnion appends the body of a JSONSchemaPropsOrArray
// ({schema=1, jSONSchemas=2}), JSONSchemaPropsOrBool ({allows=1,
// schema=2}) or JSONSchemaPropsOrStringArray ({schema=1, property=2}).
func (e *encoder) schemaUnion(m *message, f *field, k valueKind, msg *message, v *jsonValue) error {
	schema := msg.fields[0].msg
	if k == kSchemaOrBool {
		schema = msg.fields[1].msg
	}
	nested := func(num int32, obj *jsonValue) error {
		var start int
		e.out, start = beginNested(e.out, num)
		if err := e.messageBody(schema, obj); err != nil {
			return err
		}
		e.out = endNested(e.out, start)
		return nil
	}
	switch k {
	case kSchemaOrBool:
		switch {
		case v == nil:
			e.out = append(e.out, 0x08, 0)
		case v.kind == jObject:
			e.out = append(e.out, 0x08, 1)
			return nested(2, v)
		case v.kind == jBool:
			e.out = append(e.out, 0x08, map[bool]byte{false: 0, true: 1}[v.raw[0] == 't'])
		default:
			return fmt.Errorf("boolean or JSON schema expected")
		}
	case kSchemaOrArray:
		switch {
		case v == nil:
		case v.kind == jObject:
			return nested(1, v)
		case v.kind == jArray:
			for i := range v.elems {
				if err := nested(2, &v.elems[i]); err != nil {
					return err
				}
			}
		}
	case kSchemaOrStrings:
		switch {
		case v == nil:
		case v.kind == jObject:
			return nested(1, v)
		case v.kind == jArray:
			return e.strings(m, f, 2, v)
		}
	}
	return nil
}
