package kubeproto

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decoder converts protobuf messages to the JSON encoding/json writes for
// the Go type: fields in declaration order, omitempty and omitzero
// applied to the decoded value, maps in key order.
type decoder struct {
	out   []byte
	limit int
	depth int
	// apiVersion and kind fill the TypeMeta of the outermost object.
	apiVersion, kind string
}

// record is one field occurrence, tagged with its field index.
type record struct {
	idx int
	f   wireField
}

// wantWire is the wire type a value kind is written with.
func wantWire(k valueKind) int {
	switch k {
	case kBool, kInt32, kInt64:
		return wireVarint
	case kFloat64:
		return wireFixed64
	}
	return wireBytes
}

// message writes the JSON object of m from data.
func (d *decoder) message(m *message, data []byte, top bool) error {
	d.out = append(d.out, '{')
	first := true
	if err := d.fields(m, data, top, &first); err != nil {
		return err
	}
	d.out = append(d.out, '}')
	return nil
}

// fields writes m's members (without braces) from data; inline messages
// call it again with the same first flag.
func (d *decoder) fields(m *message, data []byte, top bool, first *bool) error {
	if d.depth++; d.depth > maxMessageDepth {
		return fmt.Errorf("exceeded max depth of %d", maxMessageDepth)
	}
	defer func() { d.depth-- }()
	if len(d.out) > d.limit {
		return errTooLarge
	}
	recs, err := scan(m, data)
	if err != nil {
		return err
	}
	for i := range m.fields {
		f := &m.fields[i]
		j := 0
		for j < len(recs) && recs[j].idx == i {
			j++
		}
		group := recs[:j]
		recs = recs[j:]
		if err := d.field(m, f, group, top, first); err != nil {
			return err
		}
	}
	return nil
}

// scan reads every field of data, checks its wire type, and returns the
// known ones grouped by field index (wire order kept within a field).
func scan(m *message, data []byte) ([]record, error) {
	var recs []record
	for i := 0; i < len(data); {
		wf, next, err := readField(data, i)
		if err != nil {
			return nil, err
		}
		i = next
		f := m.fieldByNum(wf.num)
		if f == nil {
			continue // unknown fields are skipped, as the generated code does
		}
		want := wantWire(f.kind)
		if f.has(fMap) || f.has(fInline) {
			want = wireBytes
		}
		if wf.wire != want && !(f.has(fRepeated) && wf.wire == wireBytes && want != wireBytes) {
			return nil, fmt.Errorf("proto: wrong wireType = %d for field %s", wf.wire, f.json)
		}
		recs = append(recs, record{idx: int(m.byNum[wf.num] - 1), f: wf})
	}
	if !slices.IsSortedFunc(recs, func(a, b record) int { return a.idx - b.idx }) {
		slices.SortStableFunc(recs, func(a, b record) int { return a.idx - b.idx })
	}
	return recs, nil
}

// key writes a member name.
func (d *decoder) key(name string, first *bool) {
	if !*first {
		d.out = append(d.out, ',')
	}
	*first = false
	d.out = AppendJSONString(d.out, name)
	d.out = append(d.out, ':')
}

// merged returns the bytes of a message field given several times: the
// concatenation, which protobuf defines as their merge.
func merged(group []record) []byte {
	switch len(group) {
	case 0:
		return nil
	case 1:
		return group[0].f.data
	}
	var b []byte
	for _, r := range group {
		b = append(b, r.f.data...)
	}
	return b
}

// field writes one field (or nothing, when omitempty or omitzero drops it).
func (d *decoder) field(m *message, f *field, group []record, top bool, first *bool) error {
	omit := f.has(fOmitEmpty) || f.has(fOmitZero)
	switch {
	case f.kind == kTypeMeta:
		if top {
			if d.kind != "" {
				d.key("kind", first)
				d.out = AppendJSONString(d.out, d.kind)
			}
			if d.apiVersion != "" {
				d.key("apiVersion", first)
				d.out = AppendJSONString(d.out, d.apiVersion)
			}
		}
		return nil
	case f.has(fInline):
		return d.fields(f.msg, merged(group), false, first)
	case len(group) == 0 && (f.has(fRepeated) || f.has(fMap) || f.has(fPointer) || f.kind == kBytes):
		// A nil slice, map or pointer.
		if !omit {
			d.key(f.json, first)
			d.out = append(d.out, "null"...)
		}
		return nil
	case f.has(fMap):
		d.key(f.json, first)
		return d.mapValue(f, group)
	case f.has(fRepeated):
		d.key(f.json, first)
		return d.repeated(f, group)
	case f.kind == kBytes && f.has(fOmitEmpty) && len(group[len(group)-1].f.data) == 0:
		return nil
	}
	if omit && d.isZero(f, group) {
		return nil
	}
	d.key(f.json, first)
	return d.value(f.kind, f.msg, group)
}

// isZero reports whether a non-pointer single field decodes to its zero
// value, for omitempty (scalars) and omitzero (scalars and Time).
func (d *decoder) isZero(f *field, group []record) bool {
	if f.has(fPointer) {
		return false
	}
	var last wireField
	if len(group) > 0 {
		last = group[len(group)-1].f
	}
	switch f.kind {
	case kString, kBytes:
		return len(group) == 0 || len(last.data) == 0
	case kBool, kInt32, kInt64:
		return last.u == 0 || (f.kind == kInt32 && uint32(last.u) == 0)
	case kFloat64:
		return math.Float64frombits(last.u) == 0
	case kTime, kMicroTime:
		if f.has(fOmitZero) {
			sec, _, err := timestampOf(merged(group))
			return err == nil && sec == zeroTimeSeconds
		}
	}
	return false
}

// zeroTimeSeconds is the Unix time of Go's zero time.Time.
const zeroTimeSeconds = -62135596800

// repeated writes a JSON array of the group's values.
func (d *decoder) repeated(f *field, group []record) error {
	d.out = append(d.out, '[')
	n := 0
	for _, r := range group {
		if r.f.wire == wireBytes && wantWire(f.kind) != wireBytes {
			if err := d.packed(f, r.f.data, &n); err != nil {
				return err
			}
			continue
		}
		if n > 0 {
			d.out = append(d.out, ',')
		}
		n++
		if err := d.value(f.kind, f.msg, []record{r}); err != nil {
			return err
		}
	}
	d.out = append(d.out, ']')
	return nil
}

// packed writes the elements of a packed repeated scalar.
func (d *decoder) packed(f *field, data []byte, n *int) error {
	for i := 0; i < len(data); {
		var wf wireField
		var err error
		switch wantWire(f.kind) {
		case wireVarint:
			wf.u, i, err = readVarint(data, i)
		default:
			if len(data)-i < 8 {
				return errTruncated
			}
			wf.u, i = uint64(data[i])|uint64(data[i+1])<<8|uint64(data[i+2])<<16|uint64(data[i+3])<<24|
				uint64(data[i+4])<<32|uint64(data[i+5])<<40|uint64(data[i+6])<<48|uint64(data[i+7])<<56, i+8
		}
		if err != nil {
			return err
		}
		if *n > 0 {
			d.out = append(d.out, ',')
		}
		*n++
		if err := d.value(f.kind, nil, []record{{f: wf}}); err != nil {
			return err
		}
	}
	return nil
}

// mapEntry is one decoded map entry.
type mapEntry struct {
	key   string
	value []record
}

// mapValue writes a JSON object from map entries, in key order, the last
// entry of a repeated key winning.
func (d *decoder) mapValue(f *field, group []record) error {
	entries := make([]mapEntry, 0, len(group))
	for _, r := range group {
		var e mapEntry
		for i := 0; i < len(r.f.data); {
			wf, next, err := readField(r.f.data, i)
			if err != nil {
				return fmt.Errorf("map %s: %w", f.json, err)
			}
			i = next
			switch wf.num {
			case 1:
				if wf.wire != wireBytes {
					return fmt.Errorf("proto: wrong wireType = %d for field key", wf.wire)
				}
				e.key = string(wf.data)
			case 2:
				if wf.wire != wantWire(f.kind) {
					return fmt.Errorf("proto: wrong wireType = %d for field value", wf.wire)
				}
				e.value = append(e.value, record{f: wf})
			}
		}
		entries = append(entries, e)
	}
	slices.SortStableFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	d.out = append(d.out, '{')
	first := true
	for i, e := range entries {
		if i+1 < len(entries) && entries[i+1].key == e.key {
			continue
		}
		d.key(e.key, &first)
		if f.kind == kBytes && len(e.value) == 0 {
			d.out = append(d.out, "null"...)
			continue
		}
		if err := d.value(f.kind, f.msg, e.value); err != nil {
			return err
		}
	}
	d.out = append(d.out, '}')
	return nil
}

// value writes one value of kind k from its occurrences (none: the zero
// value).
func (d *decoder) value(k valueKind, msg *message, group []record) error {
	var last wireField
	if len(group) > 0 {
		last = group[len(group)-1].f
	}
	switch k {
	case kString:
		d.out = AppendJSONString(d.out, string(last.data))
	case kBytes:
		d.out = append(d.out, '"')
		d.out = base64.StdEncoding.AppendEncode(d.out, last.data)
		d.out = append(d.out, '"')
	case kBool:
		d.out = strconv.AppendBool(d.out, last.u != 0)
	case kInt32:
		d.out = strconv.AppendInt(d.out, int64(int32(last.u)), 10)
	case kInt64:
		d.out = strconv.AppendInt(d.out, int64(last.u), 10)
	case kFloat64:
		out, err := appendJSONFloat(d.out, math.Float64frombits(last.u))
		if err != nil {
			return err
		}
		d.out = out
	case kMessage:
		return d.message(msg, merged(group), false)
	default:
		return d.special(k, msg, merged(group))
	}
	return nil
}

// timestampOf reads a Timestamp {seconds=1, nanos=2}; an empty message
// is the zero time.
func timestampOf(data []byte) (sec int64, nanos int32, err error) {
	if len(data) == 0 {
		return zeroTimeSeconds, 0, nil
	}
	for i := 0; i < len(data); {
		wf, next, err := readField(data, i)
		if err != nil {
			return 0, 0, fmt.Errorf("Timestamp: %w", err)
		}
		i = next
		if wf.num > 2 {
			continue
		}
		if wf.wire != wireVarint {
			return 0, 0, fmt.Errorf("proto: wrong wireType = %d for field %s", wf.wire, [...]string{1: "Seconds", 2: "Nanos"}[wf.num])
		}
		if wf.num == 1 {
			sec = int64(wf.u)
		} else {
			nanos = int32(wf.u)
		}
	}
	return sec, nanos, nil
}

// special writes the values whose types have their own JSON form.
func (d *decoder) special(k valueKind, msg *message, data []byte) error {
	switch k {
	case kTime, kMicroTime:
		sec, nanos, err := timestampOf(data)
		if err != nil {
			return err
		}
		if sec == zeroTimeSeconds && (k == kTime || nanos == 0) {
			d.out = append(d.out, "null"...)
			return nil
		}
		d.out = append(d.out, '"')
		if k == kTime {
			d.out = time.Unix(sec, 0).UTC().AppendFormat(d.out, time.RFC3339)
		} else {
			ns := time.Duration(nanos).Truncate(time.Microsecond)
			t := time.Unix(sec, int64(ns)).UTC()
			if t.IsZero() {
				d.out = append(d.out[:len(d.out)-1], "null"...)
				return nil
			}
			d.out = t.AppendFormat(d.out, "2006-01-02T15:04:05.000000Z07:00")
		}
		d.out = append(d.out, '"')
		return nil
	case kSchemaOrArray, kSchemaOrBool, kSchemaOrStrings:
		return d.schemaUnion(k, msg, data)
	}
	fs, err := readSmall(data)
	if err != nil {
		return err
	}
	switch k {
	case kDuration:
		d.out = AppendJSONString(d.out, time.Duration(fs[1].u).String())
	case kQuantity:
		s := "0"
		if fs[1].present {
			if s, err = canonicalQuantity(string(fs[1].data)); err != nil {
				return err
			}
		}
		d.out = AppendJSONString(d.out, s)
	case kIntOrString:
		switch fs[1].u {
		case 0:
			d.out = strconv.AppendInt(d.out, int64(int32(fs[2].u)), 10)
		case 1:
			d.out = AppendJSONString(d.out, string(fs[3].data))
		default:
			return fmt.Errorf("impossible IntOrString.Type")
		}
	case kRawExtension, kFieldsV1, kJSON:
		if !fs[1].present || (k == kJSON && len(fs[1].data) == 0) {
			d.out = append(d.out, "null"...)
			return nil
		}
		out, err := appendRawJSON(d.out, fs[1].data)
		if err != nil {
			return err
		}
		d.out = out
	case kStrings:
		if len(fs[1].all) == 0 {
			d.out = append(d.out, "null"...)
			return nil
		}
		d.out = append(d.out, '[')
		for i, s := range fs[1].all {
			if i > 0 {
				d.out = append(d.out, ',')
			}
			d.out = AppendJSONString(d.out, string(s))
		}
		d.out = append(d.out, ']')
	default:
		return fmt.Errorf("kubeproto: no decoding for value kind %d", k)
	}
	return nil
}

// smallField is the last value of fields 1–3 of a small message, and
// every bytes value of field 1.
type smallField struct {
	present bool
	wire    int
	u       uint64
	data    []byte
	all     [][]byte
}

// readSmall reads fields 1–3 of the small special messages (Duration,
// Quantity, IntOrString, RawExtension, FieldsV1, JSON, ExtraValue); each
// has at most three, of the wire types the expected kinds imply.
func readSmall(data []byte) ([4]smallField, error) {
	var fs [4]smallField
	for i := 0; i < len(data); {
		wf, next, err := readField(data, i)
		if err != nil {
			return fs, err
		}
		i = next
		if wf.num > 3 {
			continue
		}
		s := &fs[wf.num]
		if s.present && s.wire != wf.wire {
			return fs, fmt.Errorf("proto: wrong wireType = %d for field %d", wf.wire, wf.num)
		}
		s.present, s.wire, s.u, s.data = true, wf.wire, wf.u, wf.data
		if wf.wire == wireBytes {
			s.all = append(s.all, wf.data)
		}
	}
	return fs, nil
}

// schemaUnion writes a JSONSchemaProps union.
func (d *decoder) schemaUnion(k valueKind, msg *message, data []byte) error {
	var schema, items [][]byte
	allows := false
	for i := 0; i < len(data); {
		wf, next, err := readField(data, i)
		if err != nil {
			return err
		}
		i = next
		switch {
		case k == kSchemaOrBool && wf.num == 1 && wf.wire == wireVarint:
			allows = wf.u != 0
		case k == kSchemaOrBool && wf.num == 2 && wf.wire == wireBytes,
			k != kSchemaOrBool && wf.num == 1 && wf.wire == wireBytes:
			schema = append(schema, wf.data)
		case k != kSchemaOrBool && wf.num == 2 && wf.wire == wireBytes:
			items = append(items, wf.data)
		case wf.num <= 2:
			return fmt.Errorf("proto: wrong wireType = %d for field %d", wf.wire, wf.num)
		}
	}
	schemaMsg := msg.fields[0].msg
	if k == kSchemaOrBool {
		schemaMsg = msg.fields[1].msg
	}
	join := func(parts [][]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	switch {
	case k == kSchemaOrBool && schema == nil:
		d.out = strconv.AppendBool(d.out, allows)
	case k != kSchemaOrBool && len(items) > 0:
		d.out = append(d.out, '[')
		for i, it := range items {
			if i > 0 {
				d.out = append(d.out, ',')
			}
			if k == kSchemaOrStrings {
				d.out = AppendJSONString(d.out, string(it))
			} else if err := d.message(schemaMsg, it, false); err != nil {
				return err
			}
		}
		d.out = append(d.out, ']')
	case schema != nil:
		return d.message(schemaMsg, join(schema), false)
	default:
		d.out = append(d.out, "null"...)
	}
	return nil
}
