package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/kubecache/kubecache/kubeproto"
)

// The protobuf decoder: a built-in kind's protobuf message decoded
// straight into a user's Go type, each field of the type found by its JSON
// name in the kubeproto table, so the result is what Decode gives for the
// server's JSON of the same object. A plan is built once per (Go type,
// message) by reflection: for each protobuf field number, the offset of
// the struct field it lands in and the function that decodes it. The walk
// writes each value through a pointer at that offset (package unsafe)
// rather than through reflect.Value, which costs a type check, a flag
// check and a call per field read: the plan's types were checked once,
// when it was built, so the walk does not check them again. A field the type does not
// have is skipped without being materialised (a length-delimited one costs
// the reading of its tag and length). Values the plan cannot decode itself
// (an IntOrString, a Duration, a type with its own UnmarshalJSON) are
// converted to JSON one value at a time by kubeproto and decoded as Decode
// would; a type the plan cannot hold at all (a map with non-string keys)
// is converted whole. Unstructured has a decoder of its own
// (protobuf_unstructured.go). Strings are interned as Decode
// interns them. The benchmark that justifies it is BenchmarkDecodeProtobuf
// (go test -run '^$' -bench 'Decode(Protobuf|JSON)Pod' -benchmem ./meta/).

// maxProtoDepth bounds how deeply messages may nest in one object, as
// kubeproto's conversion does.
const maxProtoDepth = 100

// errProtoDepth reports a message nested deeper than maxProtoDepth.
var errProtoDepth = fmt.Errorf("protobuf: messages nested deeper than %d", maxProtoDepth)

// DecodeProtobuf allocates a new T and decodes into it message, the bare
// protobuf message of an object of the given apiVersion and kind (a list
// item, or the raw of a body's envelope; see DecodeProtobufBody). The
// result equals Decode[T] of the JSON the server writes for the object;
// kind and apiVersion, which protobuf carries outside the message, are set
// from the arguments when they are not empty. A kind the kubeproto table
// does not hold is an error wrapping kubeproto.ErrUnknownKind; malformed
// input is an error, never a panic.
func DecodeProtobuf[T Object](apiVersion, kind string, message []byte) (T, error) {
	obj, err := decodeProtobuf[T](apiVersion, kind, message)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("decode %s from protobuf: %w", typeName[T](), err)
	}
	return obj, nil
}

func decodeProtobuf[T Object](apiVersion, kind string, message []byte) (T, error) {
	var zero T
	if _, ok := any(zero).(*Unstructured); ok {
		u, err := decodeProtobufUnstructured(apiVersion, kind, message)
		if err != nil {
			return zero, err
		}
		return any(u).(T), nil
	}
	m, err := kubeproto.MessageOf(apiVersion, kind)
	if err != nil {
		return zero, err
	}
	obj := New[T]()
	if p := protoPlanFor(reflect.TypeFor[T]().Elem(), m); p != nil {
		if err := p.decode(message, reflect.ValueOf(obj).UnsafePointer(), 0); err != nil {
			return zero, err
		}
		if tm := obj.GetTypeMeta(); p.typeMeta && kind != "" {
			tm.Kind, tm.APIVersion = kind, apiVersion
		}
		return obj, nil
	}
	// The type is not one the plan can hold: convert the whole object to
	// JSON and decode that.
	data, err := kubeproto.DecodeMessage(apiVersion, kind, message, kind != "")
	if err != nil {
		return zero, err
	}
	return Decode[T](data)
}

// DecodeProtobufBody decodes a whole protobuf body (kubeproto.Magic and
// the runtime.Unknown envelope naming apiVersion and kind around the
// object's message), as a server sends one object or a watch event's
// object, into a new T.
func DecodeProtobufBody[T Object](body []byte) (T, error) {
	env, err := kubeproto.ParseEnvelope(body)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("decode %s from protobuf: %w", typeName[T](), err)
	}
	return DecodeProtobuf[T](env.APIVersion, env.Kind, env.Raw)
}

// ProtobufDecodable reports whether a T is decoded from protobuf by a plan
// of its own, into its Go fields: true for struct types such as a user's
// Pod and PartialObjectMetadata. It is false for Unstructured, which
// holds most of an object as JSON: from protobuf, that JSON is written
// from the message (its metadata is decoded by a plan), which costs about
// what decoding the server's JSON does (docs/performance.md, "Unstructured
// over protobuf").
func ProtobufDecodable[T Object]() bool {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer {
		return false
	}
	_, ok := structLayout(t.Elem())
	return ok && t.Elem().Kind() == reflect.Struct && !protoDecodesItself(t.Elem())
}

// protoDecodesItself reports whether values of t decode themselves from
// JSON in a way the plan cannot reproduce field by field. Time, FieldsV1
// and PartialObjectMetadata have decoders of the plan's own.
func protoDecodesItself(t reflect.Type) bool {
	switch t {
	case timeType, fieldsV1Type, partialType:
		return false
	}
	return decodesItself(t)
}

var partialType = reflect.TypeFor[PartialObjectMetadata]()

// protoDecoder decodes one value read off the wire into the Go value at p,
// whose type is the one the decoder was built for.
type protoDecoder func(p unsafe.Pointer, wf kubeproto.WireField, depth int) error

// protoStringValue decodes one value read off the wire as a Go string: the
// values of a map[string]string, decoded without a pointer to a
// temporary.
type protoStringValue func(wf kubeproto.WireField) (string, error)

// protoPlan decodes one message into one struct type.
type protoPlan struct {
	// byNum holds, for each field number, the index in fields + 1 (0:
	// the type has no field for that number).
	byNum  []int16
	fields []protoField
	// typeMeta: the message's JSON form has kind and apiVersion (from
	// the envelope).
	typeMeta bool
	// identity, in the plan of ObjectMeta, holds the field numbers of
	// name, uid and resourceVersion, decoded together by decodeIdentity
	// before the walk (which then skips them); nil otherwise.
	identity *identityFields
}

// protoField is where one protobuf field lands and how it is decoded.
type protoField struct {
	name string
	// offset is where the field starts in the struct the plan decodes
	// (the sum of the offsets along its index: no pointers on the way).
	offset uintptr
	// wire is the wire type of one value (of one element, of one map
	// entry: WireBytes).
	wire int
	// kind is how the field is held: one value, a slice, a map.
	kind fieldShape
	// decode decodes one value (one element of a slice, one entry's value
	// of a map). inline, for an inline message, is the plan applied to the
	// same struct.
	decode protoDecoder
	inline *protoPlan
	typ    reflect.Type
	// str, for a map[string]string, decodes one entry's value.
	str protoStringValue
	// omits: the JSON form leaves the field out at some of its values
	// (msg.OmitsValue of field msgIndex), and the Go type is one where
	// being left out differs from holding the decoded zero (a pointer, an
	// interface, a []byte...): such a value zeroes the field instead.
	omits    bool
	msg      kubeproto.Message
	msgIndex int
}

// fieldShape is how a protobuf field is held in Go.
type fieldShape uint8

const (
	shapeSingle fieldShape = iota
	shapeSlice
	shapeMap
	shapeInline
)

type protoPlanKey struct {
	typ reflect.Type
	msg string
}

// protoPlans caches the plan of each (struct type, message): a
// *protoPlan, or nil when the type must be converted through JSON.
var protoPlans sync.Map // protoPlanKey -> *protoPlan

// protoPlanFor returns the plan that decodes message m into struct type t,
// or nil when values of t must be converted through JSON.
func protoPlanFor(t reflect.Type, m kubeproto.Message) *protoPlan {
	key := protoPlanKey{t, m.Name()}
	if p, ok := protoPlans.Load(key); ok {
		return p.(*protoPlan)
	}
	b := protoBuilder{building: map[protoPlanKey]*protoPlan{}}
	p := b.plan(t, m)
	actual, _ := protoPlans.LoadOrStore(key, p)
	return actual.(*protoPlan)
}

// protoBuilder builds the plans of one type and the types it contains.
type protoBuilder struct {
	// building holds the plans being built, so a recursive type refers to
	// its own plan.
	building map[protoPlanKey]*protoPlan
}

// plan builds the plan of (t, m), or returns nil when t cannot be held by
// a plan.
func (b *protoBuilder) plan(t reflect.Type, m kubeproto.Message) *protoPlan {
	key := protoPlanKey{t, m.Name()}
	if p, ok := b.building[key]; ok {
		return p
	}
	if t.Kind() != reflect.Struct || protoDecodesItself(t) {
		return nil
	}
	cands, ok := structLayout(t)
	if !ok {
		return nil
	}
	// encoding/json matches a key to a field by exact name, else
	// case-insensitively: an untagged field ContainerPort takes
	// "containerPort".
	byName := make(map[string]*candidate, len(cands))
	byFold := make(map[string]*candidate, len(cands))
	for i := range cands {
		byName[cands[i].name] = &cands[i]
		byFold[string(appendFolded(nil, []byte(cands[i].name)))] = &cands[i]
	}
	p := &protoPlan{}
	if t == objectMetaType {
		p.identity = &identityFields{}
	}
	b.building[key] = p
	for i := range m.NumFields() {
		fi := m.Field(i)
		if fi.Kind == kubeproto.KindTypeMeta {
			p.typeMeta = true
		}
		if fi.Number <= 0 || fi.Kind == kubeproto.KindTypeMeta {
			continue
		}
		var f protoField
		if fi.Inline {
			inner := b.plan(t, fi.Message)
			if inner == nil {
				return nil
			}
			f = protoField{name: fi.Message.Name(), wire: kubeproto.WireBytes, kind: shapeInline, inline: inner}
		} else {
			c := byName[fi.JSONName]
			if c == nil {
				c = byFold[string(appendFolded(nil, []byte(fi.JSONName)))]
			}
			if c == nil {
				continue // the type does not hold it: skipped on the wire
			}
			f, ok = b.field(t, c, m, i, fi)
			if !ok {
				return nil
			}
			if p.identity != nil && p.identity.claim(c.field.Name, fi) {
				f.decode = decodedByIdentity
			}
		}
		p.add(int(fi.Number), f)
	}
	return p
}

// add registers f under field number num.
func (p *protoPlan) add(num int, f protoField) {
	if num >= len(p.byNum) {
		p.byNum = append(p.byNum, make([]int16, num+1-len(p.byNum))...)
	}
	p.fields = append(p.fields, f)
	p.byNum[num] = int16(len(p.fields))
}

// field builds the decoding of the struct field c from field i of m. ok is
// false when the field's Go shape cannot hold the protobuf field's (a
// repeated field into a struct, say); the whole type is then converted.
func (b *protoBuilder) field(st reflect.Type, c *candidate, m kubeproto.Message, i int, fi kubeproto.FieldInfo) (protoField, bool) {
	intern := !noIntern[c.parent][c.field.Name]
	t := c.field.Type
	f := protoField{name: c.name, offset: offsetOf(st, c.index), typ: t}
	switch {
	case fi.Map:
		if t.Kind() != reflect.Map || t.Key().Kind() != reflect.String || decodesItself(t) || decodesItself(t.Key()) {
			return f, false
		}
		f.kind, f.wire = shapeMap, kubeproto.WireBytes
		f.decode = b.value(t.Elem(), m, i, fi, intern)
		if t == stringMapType {
			f.str = stringValueOf(fi.Kind, intern)
		}
	case fi.Repeated && fi.Kind != kubeproto.KindStrings:
		if t.Kind() != reflect.Slice || t.Elem().Kind() == reflect.Uint8 || decodesItself(t) {
			return f, false
		}
		f.kind, f.wire = shapeSlice, wireOf(fi.Kind)
		f.decode = b.value(t.Elem(), m, i, fi, intern)
	default:
		f.kind, f.wire = shapeSingle, wireOf(fi.Kind)
		f.decode = b.value(t, m, i, fi, intern)
		f.omits, f.msg, f.msgIndex = omittable(fi) && !zeroIsWritten(t), m, i
	}
	return f, true
}

// omittable reports whether the JSON form may leave out a field of fi's
// kind at some value (see kubeproto.Message.OmitsValue): a non-pointer
// scalar or Time.
func omittable(fi kubeproto.FieldInfo) bool {
	switch fi.Kind {
	case kubeproto.KindString, kubeproto.KindBytes, kubeproto.KindBool, kubeproto.KindInt32,
		kubeproto.KindInt64, kubeproto.KindFloat64, kubeproto.KindTime, kubeproto.KindMicroTime:
		return !fi.Pointer
	}
	return false
}

// zeroIsWritten reports whether decoding a zero value into a Go value of
// type t leaves what not decoding it would: the zero of t, for strings,
// booleans and integers (a float's zero may be negative, a pointer's
// decoded zero points to one).
func zeroIsWritten(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// offsetOf is the offset in struct t of the field at index, a path
// through embedded structs (never through a pointer: structLayout refuses
// those).
func offsetOf(t reflect.Type, index []int) uintptr {
	var off uintptr
	for _, i := range index {
		sf := t.Field(i)
		off += sf.Offset
		t = sf.Type
	}
	return off
}

// stringValueOf returns the decoder of a value of kind k as a Go string,
// or nil for a kind that is not one.
func stringValueOf(k kubeproto.ValueKind, intern bool) protoStringValue {
	switch k {
	case kubeproto.KindString:
		if intern {
			return func(wf kubeproto.WireField) (string, error) { return internProtoString(wf.Data), nil }
		}
		return func(wf kubeproto.WireField) (string, error) { return protoString(wf.Data), nil }
	case kubeproto.KindQuantity:
		return quantityString
	}
	return nil
}

// wireOf is the wire type values of kind k are written with.
func wireOf(k kubeproto.ValueKind) int {
	switch k {
	case kubeproto.KindBool, kubeproto.KindInt32, kubeproto.KindInt64:
		return kubeproto.WireVarint
	case kubeproto.KindFloat64:
		return kubeproto.WireFixed64
	}
	return kubeproto.WireBytes
}

// value returns the decoder of one value of field i of m (one element,
// one map value) into Go type t: a direct one where the Go type fits the
// kind, else the conversion of the value to JSON.
func (b *protoBuilder) value(t reflect.Type, m kubeproto.Message, i int, fi kubeproto.FieldInfo, intern bool) protoDecoder {
	if d := b.direct(t, fi, intern); d != nil {
		return d
	}
	return viaJSON(t, m, i, intern)
}

// direct returns the decoder of a value of kind fi.Kind into t that reads
// the wire itself, or nil.
func (b *protoBuilder) direct(t reflect.Type, fi kubeproto.FieldInfo, intern bool) protoDecoder {
	if t.Kind() == reflect.Pointer {
		elem := t.Elem()
		if elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Interface {
			return nil
		}
		d := b.direct(elem, fi, intern)
		if d == nil {
			return nil
		}
		if elem == timeType {
			return decodeProtoTimePointer(d)
		}
		return func(p unsafe.Pointer, wf kubeproto.WireField, depth int) error {
			pp := (*unsafe.Pointer)(p)
			if *pp == nil {
				*pp = reflect.New(elem).UnsafePointer()
			}
			return d(*pp, wf, depth)
		}
	}
	switch t {
	case timeType:
		switch fi.Kind {
		case kubeproto.KindTime:
			return decodeProtoTime
		case kubeproto.KindMicroTime:
			return decodeProtoMicroTime
		}
		return nil
	case fieldsV1Type:
		if fi.Kind == kubeproto.KindFieldsV1 {
			return decodeProtoFieldsV1
		}
		return nil
	case rawMessageType:
		switch fi.Kind {
		case kubeproto.KindRawExtension, kubeproto.KindFieldsV1, kubeproto.KindJSON:
			return decodeProtoRaw
		}
		return nil
	}
	if decodesItself(t) {
		return nil
	}
	return b.scalar(t, fi, intern)
}

// scalar returns the decoder of the plain kinds into t's kind, or nil.
func (b *protoBuilder) scalar(t reflect.Type, fi kubeproto.FieldInfo, intern bool) protoDecoder {
	k := t.Kind()
	switch fi.Kind {
	case kubeproto.KindString:
		if k == reflect.String {
			if intern {
				return decodeProtoInternedString
			}
			return decodeProtoString
		}
	case kubeproto.KindQuantity:
		if k == reflect.String {
			return decodeProtoQuantity
		}
	case kubeproto.KindBytes:
		if k == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !decodesItself(t.Elem()) {
			return decodeProtoBytes
		}
	case kubeproto.KindBool:
		if k == reflect.Bool {
			return decodeProtoBool
		}
	case kubeproto.KindInt32, kubeproto.KindInt64:
		return intDecoder(t, fi.Kind == kubeproto.KindInt32)
	case kubeproto.KindFloat64:
		switch k {
		case reflect.Float64:
			return decodeProtoFloat64
		case reflect.Float32:
			return floatDecoder32(t)
		}
	case kubeproto.KindMessage:
		if k == reflect.Struct {
			if p := b.plan(t, fi.Message); p != nil {
				return p.decodeValue
			}
		}
	}
	return nil
}

// decodeValue decodes a nested message into the struct at v.
func (p *protoPlan) decodeValue(v unsafe.Pointer, wf kubeproto.WireField, depth int) error {
	return p.decode(wf.Data, v, depth+1)
}

// viaJSON returns the decoder that converts one value to JSON with
// kubeproto and decodes the JSON into t as Decode would.
func viaJSON(t reflect.Type, m kubeproto.Message, i int, intern bool) protoDecoder {
	var pb planBuilder
	pb.building = map[reflect.Type]*structDecoder{}
	jd := pb.valueType(t, intern)
	return func(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
		data, err := m.ValueJSON(i, wf)
		if err != nil {
			return err
		}
		v := reflect.NewAt(t, p).Elem()
		s := scanner{data: data}
		if err := jd(&s, v); err == nil {
			return nil
		} else if !errors.Is(err, errSlowPath) {
			return err
		}
		// The fast path gave up: encoding/json decides.
		v.SetZero()
		return json.Unmarshal(data, v.Addr().Interface())
	}
}
