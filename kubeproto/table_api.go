package kubeproto

import (
	"fmt"
)

// This file opens the table and the wire reader to a decoder of its own:
// a client that decodes protobuf straight into its Go types, finding each
// field of its types by JSON name, as meta.DecodeProtobuf does.

// ValueKind is how one field's value is written in protobuf: a scalar, a
// message of the table, or one of the types with their own encodings.
type ValueKind uint8

// The value kinds of the table.
const (
	KindString          = ValueKind(kString)          // bytes holding UTF-8
	KindBytes           = ValueKind(kBytes)           // bytes, base64 in JSON
	KindBool            = ValueKind(kBool)            // varint 0 or 1
	KindInt32           = ValueKind(kInt32)           // varint, sign-extended
	KindInt64           = ValueKind(kInt64)           // varint
	KindFloat64         = ValueKind(kFloat64)         // fixed64
	KindMessage         = ValueKind(kMessage)         // a message of the table
	KindTypeMeta        = ValueKind(kTypeMeta)        // not in the message: kind and apiVersion come from the envelope
	KindTime            = ValueKind(kTime)            // Timestamp {seconds=1, nanos=2}, JSON at second precision
	KindMicroTime       = ValueKind(kMicroTime)       // Timestamp, JSON at microsecond precision
	KindDuration        = ValueKind(kDuration)        // {duration=1} in nanoseconds
	KindQuantity        = ValueKind(kQuantity)        // {string=1}, the canonical form
	KindIntOrString     = ValueKind(kIntOrString)     // {type=1, intVal=2, strVal=3}
	KindRawExtension    = ValueKind(kRawExtension)    // {raw=1}: raw JSON
	KindFieldsV1        = ValueKind(kFieldsV1)        // {raw=1}: raw JSON
	KindJSON            = ValueKind(kJSON)            // {raw=1}: raw JSON
	KindStrings         = ValueKind(kStrings)         // {items=1 repeated string}
	KindSchemaOrArray   = ValueKind(kSchemaOrArray)   // a schema or an array of them
	KindSchemaOrBool    = ValueKind(kSchemaOrBool)    // a boolean or a schema
	KindSchemaOrStrings = ValueKind(kSchemaOrStrings) // a schema or an array of strings
)

// Message is one message of the table. The zero Message is no message.
type Message struct {
	m *message
}

// MessageOf returns the message of objects of (apiVersion, kind); an
// (apiVersion, kind) the table does not hold is an error wrapping
// ErrUnknownKind.
func MessageOf(apiVersion, kind string) (Message, error) {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return Message{}, err
	}
	return Message{m}, nil
}

// MessageNamed returns the message of the table named name, as the table
// names them ("meta/v1.ListMeta", "core/v1.PodSpec"), and whether there is
// one.
func MessageNamed(name string) (Message, bool) {
	r, err := schema()
	if err != nil || r.messages[name] == nil {
		return Message{}, false
	}
	return Message{r.messages[name]}, true
}

// KnownAPIVersion reports whether the table holds any kind of apiVersion
// ("v1", "apps/v1"): the group and version of a built-in API.
func KnownAPIVersion(apiVersion string) bool {
	r, err := schema()
	if err != nil {
		return false
	}
	_, ok := r.groups[apiVersion]
	return ok
}

// IsZero reports whether m is no message.
func (m Message) IsZero() bool { return m.m == nil }

// Name returns the message's name in the table.
func (m Message) Name() string { return m.m.name }

// NumFields returns how many fields the message has (those of its Go
// type, in declaration order, including ones without a protobuf number).
func (m Message) NumFields() int { return len(m.m.fields) }

// Field describes field i, 0 <= i < NumFields.
func (m Message) Field(i int) FieldInfo {
	f := &m.m.fields[i]
	return FieldInfo{
		JSONName: f.json,
		Number:   f.num,
		Kind:     ValueKind(f.kind),
		Repeated: f.has(fRepeated),
		Map:      f.has(fMap),
		Pointer:  f.has(fPointer),
		Inline:   f.has(fInline),
		Message:  Message{f.msg},
	}
}

// OmitsValue reports whether the JSON form of a message leaves field i out
// when wf is the field's last value on the wire: a non-pointer scalar
// tagged omitempty or omitzero at its zero value, or a Time at the zero
// instant tagged omitzero. Servers write such fields in protobuf all the
// same; a decoder into Go values that gives the field its zero value then
// holds what decoding the JSON form would.
func (m Message) OmitsValue(i int, wf WireField) bool {
	f := &m.m.fields[i]
	if !f.has(fOmitEmpty) && !f.has(fOmitZero) || f.has(fRepeated) || f.has(fMap) || f.has(fInline) || f.kind == kTypeMeta {
		return false
	}
	last := wireField{num: wf.Num, wire: wf.Wire, u: wf.Varint, data: wf.Data}
	if f.kind == kBytes && f.has(fOmitEmpty) && len(last.data) == 0 {
		return true
	}
	var d decoder
	return d.isZero(f, []record{{f: last}})
}

// FieldInfo is what the table says of one field.
type FieldInfo struct {
	// JSONName is the field's JSON member name; "" for an inline field
	// (an embedded struct whose members are the parent's in JSON).
	JSONName string
	// Number is the protobuf field number; 0 when the field is not in
	// protobuf (TypeMeta).
	Number int32
	// Kind is how a value is written.
	Kind ValueKind
	// Repeated is a list: one protobuf field per element (or a packed
	// run for scalars). Map is a map: one entry message {key=1, value=2}
	// per key, the value of Kind. Pointer is an optional value with
	// presence. Inline is an embedded struct: its own message in
	// protobuf, flattened into the parent's members in JSON.
	Repeated, Map, Pointer, Inline bool
	// Message is the message of a KindMessage value (and of the schema
	// unions); the zero Message otherwise.
	Message Message
}

// ValueJSON converts one value of field i, as read off the wire (one
// element of a repeated field, the value of one entry of a map), to the JSON encoding/json writes for it.
// It is the way back to JSON for a decoder that meets a value it does not
// decode itself.
func (m Message) ValueJSON(i int, wf WireField) ([]byte, error) {
	f := &m.m.fields[i]
	if f.kind == kTypeMeta || f.has(fInline) {
		return nil, fmt.Errorf("kubeproto: field %s of %s has no value of its own", f.json, m.m.name)
	}
	d := decoder{limit: outputLimit(len(wf.Data))}
	rec := record{f: wireField{num: wf.Num, wire: wf.Wire, u: wf.Varint, data: wf.Data}}
	if err := d.value(f.kind, f.msg, []record{rec}); err != nil {
		return nil, err
	}
	if len(d.out) > d.limit {
		return nil, errTooLarge
	}
	return d.out, nil
}

// Wire types of the protobuf encoding, as WireField.Wire holds them.
const (
	WireVarint  = wireVarint
	WireFixed64 = wireFixed64
	WireBytes   = wireBytes
	WireFixed32 = wireFixed32
)

// WireField is one field read off the wire: its number, its wire type,
// and its varint or fixed value (Varint) or its length-delimited bytes
// (Data, aliasing the input).
type WireField struct {
	Num    uint64
	Wire   int
	Varint uint64
	Data   []byte
}

// ReadField reads the field at b[i:] and returns it with the index after
// it. A length-delimited field is not copied: skipping one costs the
// reading of its tag and length. Illegal tags and wire types and lengths
// past the end of b are errors.
func ReadField(b []byte, i int) (WireField, int, error) {
	// The fast path: a tag of one or two bytes (fields 1 to 2047) of a
	// length-delimited field whose length fits one or two bytes, or of a
	// varint field, what nearly every field of an object is. Anything
	// else, and anything near the end of b, takes the general path.
	if i < 0 || i+2 >= len(b) {
		return readFieldSlow(b, i)
	}
	t := b[i]
	num, j := uint64(t>>3), i+1
	if t >= 0x80 {
		if b[j] >= 0x80 {
			return readFieldSlow(b, i)
		}
		num = uint64(t&0x7f)>>3 | uint64(b[j])<<4
		j++
	}
	if num == 0 || j >= len(b) {
		return readFieldSlow(b, i)
	}
	switch t & 7 {
	case wireBytes:
		n := int(b[j])
		j++
		if n >= 0x80 {
			if j >= len(b) || b[j] >= 0x80 {
				return readFieldSlow(b, i)
			}
			n = n&0x7f | int(b[j])<<7
			j++
		}
		if n > len(b)-j {
			return WireField{}, 0, errTruncated
		}
		return WireField{Num: num, Wire: wireBytes, Data: b[j : j+n : j+n]}, j + n, nil
	case wireVarint:
		var u uint64
		for shift := uint(0); shift < 64 && j < len(b); shift += 7 {
			c := b[j]
			j++
			u |= uint64(c&0x7f) << shift
			if c < 0x80 {
				return WireField{Num: num, Wire: wireVarint, Varint: u}, j, nil
			}
		}
	}
	return readFieldSlow(b, i)
}

// readFieldSlow is ReadField for any field.
func readFieldSlow(b []byte, i int) (WireField, int, error) {
	f, next, err := readField(b, i)
	return WireField{Num: f.num, Wire: f.wire, Varint: f.u, Data: f.data}, next, err
}

// ReadVarint reads the varint at b[i:] and returns it with the index
// after it.
func ReadVarint(b []byte, i int) (uint64, int, error) { return readVarint(b, i) }
