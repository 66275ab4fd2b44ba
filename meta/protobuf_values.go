package meta

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/kubecache/kubecache/kubeproto"
)

// This file holds the protobuf decoder's walk over one message and its
// leaf decoders (protobuf_decode.go builds the plans that call them). Each
// decoder writes through a pointer to a value of the Go type it was built
// for; reflect is used only to allocate (slices, maps, pointers) and for
// the values converted through JSON.

// decode decodes the message data into the struct at v. Fields are applied
// in wire order; a field given twice takes the last value (a message: the
// merge of both), as protobuf defines.
func (p *protoPlan) decode(data []byte, v unsafe.Pointer, depth int) error {
	if depth > maxProtoDepth {
		return errProtoDepth
	}
	if p.identity != nil {
		p.identity.decode(data, (*ObjectMeta)(v))
	}
	for i := 0; i < len(data); {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil {
			return err
		}
		if wf.Num >= uint64(len(p.byNum)) || p.byNum[wf.Num] == 0 {
			i = next // a field the type does not hold
			continue
		}
		f := &p.fields[p.byNum[wf.Num]-1]
		switch f.kind {
		case shapeInline:
			if wf.Wire != kubeproto.WireBytes {
				return wrongWire(f, wf)
			}
			if err := f.inline.decode(wf.Data, v, depth+1); err != nil {
				return err
			}
		case shapeSingle:
			if wf.Wire != f.wire {
				return wrongWire(f, wf)
			}
			if f.omits && f.msg.OmitsValue(f.msgIndex, wf) {
				reflect.NewAt(f.typ, unsafe.Add(v, f.offset)).Elem().SetZero()
				break
			}
			if err := f.decode(unsafe.Add(v, f.offset), wf, depth); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		case shapeSlice:
			if next, err = f.decodeRun(data, i, unsafe.Add(v, f.offset), wf, depth); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		case shapeMap:
			if next, err = f.decodeMapRun(data, i, unsafe.Add(v, f.offset), wf, depth); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		i = next
	}
	return nil
}

// wrongWire is the error for a field of an unexpected wire type.
func wrongWire(f *protoField, wf kubeproto.WireField) error {
	return fmt.Errorf("protobuf: wrong wire type %d for field %s (number %d)", wf.Wire, f.name, wf.Num)
}

// runLength counts the occurrences of field number num that follow one
// another from data[i:], the first of them included, and returns the
// index after the run. Servers write a repeated field's elements together,
// so the slice or map is sized exactly, once.
func runLength(data []byte, i int, num uint64) (n, end int, err error) {
	for i < len(data) {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil {
			return 0, 0, err
		}
		if wf.Num != num {
			break
		}
		n++
		i = next
	}
	return n, i, nil
}

// decodeRun decodes the run of elements of a repeated field that starts
// at data[i:] (first is its first element) and appends them to the slice
// at p. A packed run of scalars (one length-delimited field) is decoded
// element by element.
func (f *protoField) decodeRun(data []byte, i int, p unsafe.Pointer, first kubeproto.WireField, depth int) (int, error) {
	v := reflect.NewAt(f.typ, p).Elem()
	if first.Wire == kubeproto.WireBytes && f.wire != kubeproto.WireBytes {
		_, next, _ := kubeproto.ReadField(data, i)
		return next, f.decodePacked(v, first, depth)
	}
	n, end, err := runLength(data, i, first.Num)
	if err != nil {
		return 0, err
	}
	// Grow the slice in place (reflect.MakeSlice would allocate a
	// header besides the array).
	old := v.Len()
	v.Grow(n)
	v.SetLen(old + n)
	base, size := v.UnsafePointer(), f.typ.Elem().Size()
	for k := old; k < old+n; k++ {
		wf, next, _ := kubeproto.ReadField(data, i)
		i = next
		if wf.Wire != f.wire {
			return 0, wrongWire(f, wf)
		}
		if err := f.decode(unsafe.Add(base, uintptr(k)*size), wf, depth); err != nil {
			return 0, err
		}
	}
	return end, nil
}

// decodePacked appends the elements of a packed scalar run to the slice v.
func (f *protoField) decodePacked(v reflect.Value, packed kubeproto.WireField, depth int) error {
	data := packed.Data
	for i := 0; i < len(data); {
		wf := kubeproto.WireField{Num: packed.Num, Wire: f.wire}
		switch f.wire {
		case kubeproto.WireVarint:
			u, next, err := kubeproto.ReadVarint(data, i)
			if err != nil {
				return err
			}
			wf.Varint, i = u, next
		default:
			if len(data)-i < 8 {
				return fmt.Errorf("protobuf: packed %s: truncated", f.name)
			}
			for b := range 8 {
				wf.Varint |= uint64(data[i+b]) << (8 * b)
			}
			i += 8
		}
		elem := reflect.New(v.Type().Elem())
		if err := f.decode(elem.UnsafePointer(), wf, depth); err != nil {
			return err
		}
		v.Set(reflect.Append(v, elem.Elem()))
	}
	return nil
}

// decodeMapRun decodes the run of map entries {key=1, value=2} that starts
// at data[i:] into the map at p, made with room for all of them. Keys are
// interned; a repeated key keeps the last value.
func (f *protoField) decodeMapRun(data []byte, i int, p unsafe.Pointer, first kubeproto.WireField, depth int) (int, error) {
	n, end, err := runLength(data, i, first.Num)
	if err != nil {
		return 0, err
	}
	if f.str != nil {
		m := (*map[string]string)(p)
		if *m == nil {
			*m = make(map[string]string, n)
		}
		return end, f.decodeStringMap(data, i, n, *m)
	}
	v := reflect.NewAt(f.typ, p).Elem()
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(f.typ, n))
	}
	kt, et := f.typ.Key(), f.typ.Elem()
	ep := reflect.New(et)
	elem := ep.Elem()
	for range n {
		wf, next, _ := kubeproto.ReadField(data, i)
		i = next
		if wf.Wire != kubeproto.WireBytes {
			return 0, wrongWire(f, wf)
		}
		key, val, hasVal, err := mapEntry(wf.Data)
		if err != nil {
			return 0, err
		}
		elem.SetZero()
		if hasVal {
			if val.Wire != f.wire {
				return 0, wrongWire(f, val)
			}
			if err := f.decode(ep.UnsafePointer(), val, depth); err != nil {
				return 0, err
			}
		}
		k := reflect.ValueOf(internProtoString(key))
		if k.Type() != kt {
			k = k.Convert(kt)
		}
		v.SetMapIndex(k, elem)
	}
	return end, nil
}

// decodeStringMap is decodeMapRun for a map[string]string, without a
// reflect.Value per entry.
func (f *protoField) decodeStringMap(data []byte, i, n int, m map[string]string) error {
	for range n {
		wf, next, _ := kubeproto.ReadField(data, i)
		i = next
		if wf.Wire != kubeproto.WireBytes {
			return wrongWire(f, wf)
		}
		key, val, hasVal, err := mapEntry(wf.Data)
		if err != nil {
			return err
		}
		var elem string
		if hasVal {
			if val.Wire != f.wire {
				return wrongWire(f, val)
			}
			if elem, err = f.str(val); err != nil {
				return err
			}
		}
		m[internProtoString(key)] = elem
	}
	return nil
}

// mapEntry reads a map entry's key (field 1) and value (field 2).
func mapEntry(data []byte) (key []byte, val kubeproto.WireField, hasVal bool, err error) {
	for i := 0; i < len(data); {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil {
			return nil, val, false, err
		}
		i = next
		switch wf.Num {
		case 1:
			if wf.Wire != kubeproto.WireBytes {
				return nil, val, false, fmt.Errorf("protobuf: wrong wire type %d for a map key", wf.Wire)
			}
			key = wf.Data
		case 2:
			val, hasVal = wf, true
		}
	}
	return key, val, hasVal, nil
}

// protoString is the Go string of protobuf string bytes as a JSON round
// trip gives it: invalid UTF-8 becomes U+FFFD byte by byte, as
// encoding/json writes it.
func protoString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		out = utf8.AppendRune(out, r) // RuneError for each invalid byte
		b = b[n:]
	}
	return string(out)
}

// internProtoString is protoString, interned.
func internProtoString(b []byte) string {
	if s, ok := internValidBytes(b); ok {
		return s
	}
	return intern(protoString(b))
}

// The leaf decoders below write a value of the kind their name says at p;
// the plan only builds them for a field of that kind (a string decoder for
// a field whose kind is reflect.String, and so on).

func decodeProtoString(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	*(*string)(p) = protoString(wf.Data)
	return nil
}

func decodeProtoInternedString(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	*(*string)(p) = internProtoString(wf.Data)
	return nil
}

func decodeProtoBytes(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	b := make([]byte, len(wf.Data))
	copy(b, wf.Data)
	*(*[]byte)(p) = b
	return nil
}

func decodeProtoBool(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	*(*bool)(p) = wf.Varint != 0
	return nil
}

func decodeProtoFloat64(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	*(*float64)(p) = math.Float64frombits(wf.Varint)
	return nil
}

// floatDecoder32 returns the decoder of a double into a float32 type t,
// refusing a value t cannot hold as reflect.Value.OverflowFloat does.
func floatDecoder32(t reflect.Type) protoDecoder {
	return func(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
		f := math.Float64frombits(wf.Varint)
		if a := math.Abs(f); math.MaxFloat32 < a && a <= math.MaxFloat64 {
			return fmt.Errorf("protobuf: %v overflows %v", f, t)
		}
		*(*float32)(p) = float32(f)
		return nil
	}
}

// intDecoder returns the decoder of an int32 (sign-extended varint) or
// int64 into the Go integer type t, or nil for a type that is not one. A
// value t cannot hold is an error, as reflect.Value.OverflowInt and
// OverflowUint define it.
func intDecoder(t reflect.Type, int32Field bool) protoDecoder {
	value := func(u uint64) int64 {
		if int32Field {
			return int64(int32(u))
		}
		return int64(u)
	}
	size := t.Size()
	shift := 64 - 8*size
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
			n := value(wf.Varint)
			if n<<shift>>shift != n {
				return fmt.Errorf("protobuf: %d overflows %v", n, t)
			}
			storeInt(p, size, uint64(n))
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
			n := value(wf.Varint)
			if u := uint64(n); n < 0 || u<<shift>>shift != u {
				return fmt.Errorf("protobuf: %d overflows %v", n, t)
			}
			storeInt(p, size, uint64(n))
			return nil
		}
	}
	return nil
}

// storeInt writes the low size bytes of n as the integer of that size at
// p (signed and unsigned integers share their bits).
func storeInt(p unsafe.Pointer, size uintptr, n uint64) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(n)
	case 2:
		*(*uint16)(p) = uint16(n)
	case 4:
		*(*uint32)(p) = uint32(n)
	default:
		*(*uint64)(p) = n
	}
}

// zeroTimeSeconds is the Unix time of Go's zero time.Time, which servers
// write for an unset Time.
const zeroTimeSeconds = -62135596800

// timestamp reads a Timestamp {seconds=1, nanos=2}.
func timestamp(data []byte) (sec int64, nanos int32, err error) {
	if len(data) == 0 {
		return zeroTimeSeconds, 0, nil
	}
	for i := 0; i < len(data); {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil {
			return 0, 0, err
		}
		i = next
		if wf.Num > 2 {
			continue
		}
		if wf.Wire != kubeproto.WireVarint {
			return 0, 0, fmt.Errorf("protobuf: wrong wire type %d in a Timestamp", wf.Wire)
		}
		if wf.Num == 1 {
			sec = int64(wf.Varint)
		} else {
			nanos = int32(wf.Varint)
		}
	}
	return sec, nanos, nil
}

// maxTimeSeconds bounds a Timestamp to what RFC 3339 can write (years 0
// to 9999), as JSON would.
const maxTimeSeconds = 253402300799

func decodeProtoTime(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	return setTime((*Time)(p), wf.Data, time.Second)
}

func decodeProtoMicroTime(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	return setTime((*Time)(p), wf.Data, time.Microsecond)
}

// decodeProtoTimePointer returns the decoder of a *Time from the Time
// decoder d: the zero instant, which the JSON form writes as null, leaves
// the pointer nil.
func decodeProtoTimePointer(d protoDecoder) protoDecoder {
	return func(p unsafe.Pointer, wf kubeproto.WireField, depth int) error {
		pt := (**Time)(p)
		t := *pt
		if t == nil {
			t = new(Time)
		}
		if err := d(unsafe.Pointer(t), wf, depth); err != nil {
			return err
		}
		if t.IsZero() {
			t = nil
		}
		*pt = t
		return nil
	}
}

// setTime sets t from a Timestamp, truncated to the precision its JSON
// form keeps.
func setTime(t *Time, data []byte, precision time.Duration) error {
	sec, nanos, err := timestamp(data)
	if err != nil {
		return err
	}
	if sec == zeroTimeSeconds && (precision == time.Second || nanos == 0) {
		t.Time = time.Time{}
		return nil
	}
	if sec < zeroTimeSeconds || sec > maxTimeSeconds {
		return fmt.Errorf("protobuf: timestamp %d out of range", sec)
	}
	ns := time.Duration(nanos).Truncate(precision)
	if precision == time.Second || ns < 0 || ns >= time.Second {
		ns = 0
	}
	t.Time = time.Unix(sec, int64(ns)).UTC()
	return nil
}

// rawOf reads the raw field (1) of a RawExtension, FieldsV1 or JSON.
func rawOf(data []byte) (raw []byte, present bool, err error) {
	for i := 0; i < len(data); {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil {
			return nil, false, err
		}
		i = next
		if wf.Num == 1 {
			if wf.Wire != kubeproto.WireBytes {
				return nil, false, fmt.Errorf("protobuf: wrong wire type %d for raw", wf.Wire)
			}
			raw, present = wf.Data, true
		}
	}
	return raw, present, nil
}

func decodeProtoFieldsV1(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	raw, present, err := rawOf(wf.Data)
	if err != nil || !present || len(raw) == 0 {
		return err
	}
	f, err := fieldsV1Of(raw)
	if err != nil {
		return err
	}
	*(*FieldsV1)(p) = f
	return nil
}

// fieldsV1Cache remembers the FieldsV1 of recently decoded sets by the
// hash of their bytes: the pods of one controller own the same sets, and a
// hit costs a hash and a comparison instead of checking and compacting the
// set's JSON again. Direct-mapped and lock-free, as the intern table: a
// slot points to a FieldsV1 that never changes once published.
var fieldsV1Cache [4096]atomic.Pointer[FieldsV1]

// fieldsV1Of returns NewFieldsV1(raw), from fieldsV1Cache when it holds
// the same bytes.
func fieldsV1Of(raw []byte) (FieldsV1, error) {
	slot := &fieldsV1Cache[maphash.Bytes(internSeed, raw)%uint64(len(fieldsV1Cache))]
	if f := slot.Load(); f != nil && f.text.Value() == string(raw) {
		return *f, nil
	}
	f, err := NewFieldsV1(raw)
	if err != nil || f.IsZero() {
		return f, err
	}
	if f.text.Value() == string(raw) { // compact already: the key matches
		slot.Store(&FieldsV1{text: f.text})
	}
	return f, nil
}

// decodeProtoRaw sets a json.RawMessage to the raw JSON, or null when
// there is none, as the JSON form writes it.
func decodeProtoRaw(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	raw, present, err := rawOf(wf.Data)
	if err != nil {
		return err
	}
	v := (*json.RawMessage)(p)
	if !present || len(raw) == 0 {
		*v = []byte("null")
		return nil
	}
	s := scanner{data: raw}
	if _, err := s.valueSpan(); err != nil {
		return err
	}
	if err := s.end(); err != nil {
		return err
	}
	*v = appendCompact(make([]byte, 0, len(raw)), raw)
	return nil
}

// decodeProtoQuantity sets a string to a Quantity's string (see
// quantityString).
func decodeProtoQuantity(p unsafe.Pointer, wf kubeproto.WireField, _ int) error {
	s, err := quantityString(wf)
	if err != nil {
		return err
	}
	*(*string)(p) = s
	return nil
}

// quantityString reads a Quantity's string (field 1), which servers write
// in its canonical form; an absent one is "0".
func quantityString(wf kubeproto.WireField) (string, error) {
	s, present, err := rawOf(wf.Data)
	if err != nil {
		return "", err
	}
	if !present {
		return "0", nil
	}
	return internProtoString(s), nil
}
