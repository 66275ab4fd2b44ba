package meta

import (
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/kubeproto"
)

// The protobuf-to-JSON writer behind Unstructured's protobuf decoder: it
// writes the members of a protobuf message as the compact JSON the server
// writes for the object (kubeproto.DecodeMessage's output, byte for byte),
// in one pass over the input with no intermediate values. A writer plan
// per message, built once from the kubeproto table, holds each field's
// member name, pre-quoted, and the JSON its absence is written as (read
// off the conversion of the empty message, so the omitempty and omitzero
// rules are kubeproto's own).
//
// The writer handles what servers write: fields in any order (each
// message's are emitted in declaration order, as JSON has them), the
// elements of a repeated field and the entries of a map anywhere in the
// message, map keys in increasing order. Anything else (a single field
// given twice, which protobuf merges; a packed repeated field; map keys
// out of order; an unexpected wire type; malformed input) makes it give
// up, and the caller converts the whole object with kubeproto instead,
// which gives the result or the error. Giving up is never wrong; what the
// writer does write is exactly the conversion's.
//
// Values of the less common kinds (bytes, floats, durations, raw JSON,
// string lists) are converted one by one by kubeproto.Message.ValueJSON,
// the conversion's own code; Quantity values too, through a cache, since
// the same few quantities fill every pod.

// jsonShape is how a field is written.
type jsonShape uint8

const (
	jsonSingle jsonShape = iota
	jsonRepeated
	jsonMap
	jsonInline
	// jsonSkip: not written (the top-level metadata, decoded into
	// ObjectMeta; ObjectMeta's own fields in the plan of its unknown
	// members).
	jsonSkip
)

// jsonPlan writes the members of one message.
type jsonPlan struct {
	msg kubeproto.Message
	// byNum holds, for each field number, the index in fields + 1 (0:
	// not a field of the table's, skipped on the wire).
	byNum []int16
	// fields in declaration order, the order of the JSON members, and
	// their JSON names.
	fields []jsonField
	names  []string
	// always holds, for each field, whether it is written even when
	// absent: it has an absent value, or it is an inline message (whose
	// own fields may have one).
	always []bool
	// slow: the message holds, at some depth, a value the writer leaves
	// to the whole conversion (a JSON schema union, whose conversion
	// recurses on its own).
	slow bool
	// cacheable: messages of this plan are written from the cache (see
	// protobuf_json_cache.go); depth is how deeply messages nest below
	// this one, and state the progress of the walk that sets both.
	cacheable bool
	depth     int
	state     uint8
}

// jsonField is one field of a jsonPlan, laid out small: the writer reads
// one per field of every message it writes.
type jsonField struct {
	// key is the member's name, quoted, with its colon.
	key string
	// absent is what the member's value is written as when the field is
	// not on the wire; "": the member is left out.
	absent string
	// sub is the plan of a message value or of an inline message.
	sub  *jsonPlan
	num  uint32
	idx  int32 // the field's index in msg, for ValueJSON
	kind kubeproto.ValueKind
	// wire is the wire type of one occurrence (a map's: an entry), and
	// valueWire that of one value.
	wire, valueWire uint8
	shape           jsonShape
	// multi: the field may occur many times (repeated, map).
	multi bool
	// omitZero: a non-pointer scalar or Time whose zero value leaves the
	// member out (omitempty, omitzero).
	omitZero bool
	// bytesValue: a map of []byte, whose entry without a value is null.
	bytesValue bool
}

// jsonPlans caches the plan of each message by its name.
var jsonPlans sync.Map // string -> *jsonPlan

// jsonPlanFor returns the plan of m, whose conversion when empty is
// empty (the JSON object kubeproto writes for m with no field set).
func jsonPlanFor(m kubeproto.Message, empty []byte) (*jsonPlan, error) {
	if p, ok := jsonPlans.Load(m.Name()); ok {
		return p.(*jsonPlan), nil
	}
	b := jsonBuilder{building: map[string]*jsonPlan{}}
	p, err := b.plan(m, empty)
	if err != nil {
		return nil, err
	}
	p.finish()
	actual, _ := jsonPlans.LoadOrStore(m.Name(), p)
	return actual.(*jsonPlan), nil
}

// jsonBuilder builds the plans of one message and those it contains.
type jsonBuilder struct {
	building map[string]*jsonPlan
}

// plan builds the plan of m from its empty conversion.
func (b *jsonBuilder) plan(m kubeproto.Message, empty []byte) (*jsonPlan, error) {
	if p, ok := b.building[m.Name()]; ok {
		return p, nil
	}
	if p, ok := jsonPlans.Load(m.Name()); ok {
		return p.(*jsonPlan), nil
	}
	members, err := objectMembers(empty)
	if err != nil {
		return nil, err
	}
	p := &jsonPlan{msg: m}
	b.building[m.Name()] = p
	if err := b.fill(p, m, members); err != nil {
		return nil, err
	}
	return p, nil
}

// fill adds the fields of m to p; members are the members of the empty
// conversion of the message whose JSON object m's members appear in (m's
// own, or its parent's for an inline message).
func (b *jsonBuilder) fill(p *jsonPlan, m kubeproto.Message, members map[string][]byte) error {
	for i := range m.NumFields() {
		fi := m.Field(i)
		if fi.Kind == kubeproto.KindTypeMeta || fi.Number <= 0 {
			continue // kind and apiVersion come from the envelope
		}
		wire := uint8(wireOf(fi.Kind))
		f := jsonField{num: uint32(fi.Number), idx: int32(i), kind: fi.Kind, wire: wire, valueWire: wire}
		switch fi.Kind {
		case kubeproto.KindSchemaOrArray, kubeproto.KindSchemaOrBool, kubeproto.KindSchemaOrStrings:
			p.slow = true
		}
		switch {
		case fi.Inline:
			f.shape, f.wire = jsonInline, kubeproto.WireBytes
			// The inline message's members are m's: its plan is built
			// from m's empty conversion, and is m's alone.
			f.sub = &jsonPlan{msg: fi.Message}
			if err := b.fill(f.sub, fi.Message, members); err != nil {
				return err
			}
			p.slow = p.slow || f.sub.slow
		case fi.Map:
			f.shape, f.wire, f.multi = jsonMap, kubeproto.WireBytes, true
			f.bytesValue = fi.Kind == kubeproto.KindBytes
		case fi.Repeated:
			f.shape, f.multi = jsonRepeated, true
		}
		if !fi.Inline {
			f.key = string(append(kubeproto.AppendJSONString(nil, fi.JSONName), ':'))
			f.absent = string(members[fi.JSONName])
			f.omitZero = f.shape == jsonSingle && !fi.Pointer && f.absent == "" && zeroOmittable(fi.Kind)
		}
		if fi.Kind == kubeproto.KindMessage && !fi.Inline {
			// The empty conversion of one value: of the message alone.
			empty, err := m.ValueJSON(i, kubeproto.WireField{Num: uint64(f.num), Wire: kubeproto.WireBytes})
			if err != nil {
				return err
			}
			if f.sub, err = b.plan(fi.Message, empty); err != nil {
				return err
			}
			p.slow = p.slow || f.sub.slow
		}
		p.add(f, fi.JSONName)
	}
	return nil
}

// zeroOmittable reports whether a value of kind k can be left out at its
// zero value (kubeproto's rule: the non-pointer scalars and the times).
func zeroOmittable(k kubeproto.ValueKind) bool {
	switch k {
	case kubeproto.KindString, kubeproto.KindBytes, kubeproto.KindBool, kubeproto.KindInt32,
		kubeproto.KindInt64, kubeproto.KindFloat64, kubeproto.KindTime, kubeproto.KindMicroTime:
		return true
	}
	return false
}

// add appends f, named name, to p's fields.
func (p *jsonPlan) add(f jsonField, name string) {
	if int(f.num) >= len(p.byNum) {
		p.byNum = append(p.byNum, make([]int16, int(f.num)+1-len(p.byNum))...)
	}
	p.fields = append(p.fields, f)
	p.names = append(p.names, name)
	p.byNum[f.num] = int16(len(p.fields))
	p.always = append(p.always, f.absent != "" || f.shape == jsonInline)
}

// objectMembers splits a JSON object into its members' values by name.
func objectMembers(obj []byte) (map[string][]byte, error) {
	members := map[string][]byte{}
	s := scanner{data: obj}
	err := s.object(func(key []byte, escaped bool, _ int) error {
		v, err := s.valueSpan()
		if err == nil {
			members[internedContent(key, escaped)] = v
		}
		return err
	})
	return members, err
}

// jsonWriter writes one object's members. Its buffers are reused between
// objects (jsonWriters).
type jsonWriter struct {
	out []byte
	// spans holds where the fields present in the messages being written
	// lie in the input; slots holds, for each field of those messages
	// (one run per nesting level), its span's index in spans + 1, or 0.
	spans []jsonSpan
	slots []int32
	// limit bounds len(out), as kubeproto bounds its conversion.
	limit int
}

// jsonSpan is the part of a message holding one field's occurrences: from
// the first's tag to the end of the last (other fields may lie between);
// end 0 when the field is absent.
// For a single field it holds the value too, so that writing it does not
// read the field again: its varint or fixed value, or where its bytes
// start (they end at end).
type jsonSpan struct {
	start, end, off int
	u               uint64
}

// single returns the value of a single field at sp.
func (sp *jsonSpan) single(f *jsonField, data []byte) kubeproto.WireField {
	wf := kubeproto.WireField{Num: uint64(f.num), Wire: int(f.wire), Varint: sp.u}
	if f.wire == kubeproto.WireBytes {
		wf.Data = data[sp.off:sp.end:sp.end]
	}
	return wf
}

// jsonWriters holds idle writers.
var jsonWriters = sync.Pool{New: func() any { return new(jsonWriter) }}

// maxPooledJSON bounds the buffer a pooled writer keeps.
const maxPooledJSON = 1 << 20

// release returns w to the pool.
func (w *jsonWriter) release() {
	if cap(w.out) > maxPooledJSON {
		return
	}
	w.out, w.spans, w.slots = w.out[:0], w.spans[:0], w.slots[:0]
	jsonWriters.Put(w)
}

// members writes the members of message data by plan p, each preceded by
// a comma unless it is the first of its object (first says whether one
// was written before), and returns the new first. ok is false when the
// writer gives up. depth counts the messages around data, as kubeproto's
// conversion does.
//
// One pass over data notes where each field present lies (its span, on
// w.spans, found by its slot on w.slots); the fields are then written in
// declaration order, the absent ones only when the plan writes them
// (p.always).
func (w *jsonWriter) members(p *jsonPlan, data []byte, depth int, first bool) (_ bool, ok bool) {
	if depth > maxProtoDepth || len(w.out) > w.limit {
		return first, false
	}
	base, spanBase := len(w.slots), len(w.spans)
	w.slots = slices.Grow(w.slots, len(p.fields))[:base+len(p.fields)]
	clear(w.slots[base:])
	for i := 0; i < len(data); {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil {
			return first, false
		}
		if wf.Num < uint64(len(p.byNum)) && p.byNum[wf.Num] != 0 {
			k := int(p.byNum[wf.Num]) - 1
			f := &p.fields[k]
			if wf.Wire != int(f.wire) {
				return first, false
			}
			if slot := w.slots[base+k]; slot != 0 {
				if !f.multi {
					return first, false // a single field given twice: merged
				}
				w.spans[slot-1].end = next
			} else {
				w.spans = append(w.spans, jsonSpan{start: i, end: next, off: next - len(wf.Data), u: wf.Varint})
				w.slots[base+k] = int32(len(w.spans))
			}
		}
		i = next
	}
	for k := range p.fields {
		var sp jsonSpan // end 0: absent
		if slot := w.slots[base+k]; slot != 0 {
			sp = w.spans[slot-1]
		} else if !p.always[k] {
			continue
		}
		if first, ok = w.field(p, k, sp, data, depth, first); !ok {
			return first, false
		}
	}
	w.slots, w.spans = w.slots[:base], w.spans[:spanBase]
	return first, true
}

// field writes field k of p, present at sp or absent (sp.end 0).
func (w *jsonWriter) field(p *jsonPlan, k int, sp jsonSpan, data []byte, depth int, first bool) (_ bool, ok bool) {
	f := &p.fields[k]
	switch {
	case f.shape == jsonSkip:
		return first, true
	case f.shape == jsonInline:
		var inner []byte
		if sp.end != 0 {
			inner = data[sp.off:sp.end]
		}
		return w.members(f.sub, inner, depth+1, first)
	case sp.end == 0:
		if f.absent != "" {
			first = w.key(f, first)
			w.out = append(w.out, f.absent...)
		}
		return first, true
	}
	switch f.shape {
	case jsonSingle:
		wf := sp.single(f, data)
		if f.omitZero {
			zero, ok := isZeroValue(f.kind, wf)
			if !ok {
				return first, false
			}
			if zero {
				return first, true
			}
		}
		first = w.key(f, first)
		ok = w.value(p, f, wf, depth)
	case jsonRepeated:
		first = w.key(f, first)
		ok = w.repeated(p, f, data[sp.start:sp.end], depth)
	case jsonMap:
		first = w.key(f, first)
		ok = w.mapValue(p, f, data[sp.start:sp.end], depth)
	}
	return first, ok
}

// key writes f's member name, after a comma unless first.
func (w *jsonWriter) key(f *jsonField, first bool) bool {
	if !first {
		w.out = append(w.out, ',')
	}
	w.out = append(w.out, f.key...)
	return false
}

// isZeroValue reports whether wf holds the zero value of kind k, which
// kubeproto leaves out of a field tagged omitempty or omitzero (for a
// Time: the zero instant, whatever the nanoseconds). ok is false for a
// Timestamp that does not parse.
func isZeroValue(k kubeproto.ValueKind, wf kubeproto.WireField) (zero, ok bool) {
	switch k {
	case kubeproto.KindString, kubeproto.KindBytes:
		return len(wf.Data) == 0, true
	case kubeproto.KindBool, kubeproto.KindInt64:
		return wf.Varint == 0, true
	case kubeproto.KindInt32:
		return uint32(wf.Varint) == 0, true
	case kubeproto.KindFloat64:
		return math.Float64frombits(wf.Varint) == 0, true
	case kubeproto.KindTime, kubeproto.KindMicroTime:
		sec, _, err := timestamp(wf.Data)
		return sec == zeroTimeSeconds, err == nil
	}
	return false, true
}

// repeated writes the array of f's occurrences in run (the part of the
// message from the first to the last; other fields in it are skipped).
func (w *jsonWriter) repeated(p *jsonPlan, f *jsonField, run []byte, depth int) bool {
	w.out = append(w.out, '[')
	n := 0
	for i := 0; i < len(run); {
		wf, next, _ := kubeproto.ReadField(run, i)
		i = next
		if wf.Num != uint64(f.num) {
			continue
		}
		if n > 0 {
			w.out = append(w.out, ',')
		}
		n++
		if !w.value(p, f, wf, depth) {
			return false
		}
	}
	w.out = append(w.out, ']')
	return true
}

// mapValue writes the object of f's entries in run. The entries must be
// in increasing key order, each a key (1) and at most one value (2).
func (w *jsonWriter) mapValue(p *jsonPlan, f *jsonField, run []byte, depth int) bool {
	w.out = append(w.out, '{')
	var prev []byte
	n := 0
	for i := 0; i < len(run); {
		entry, next, _ := kubeproto.ReadField(run, i)
		i = next
		if entry.Num != uint64(f.num) {
			continue
		}
		key, val, hasVal, ok := strictMapEntry(entry.Data, int(f.valueWire))
		if !ok || (n > 0 && string(key) <= string(prev)) {
			return false
		}
		prev = key
		if n > 0 {
			w.out = append(w.out, ',')
		}
		n++
		w.out = appendJSONString(w.out, key)
		w.out = append(w.out, ':')
		switch {
		case !hasVal && f.bytesValue:
			w.out = append(w.out, "null"...)
		case !hasVal:
			if !w.value(p, f, kubeproto.WireField{Num: 2, Wire: int(f.valueWire)}, depth) {
				return false
			}
		default:
			if !w.value(p, f, val, depth) {
				return false
			}
		}
	}
	w.out = append(w.out, '}')
	return true
}

// strictMapEntry reads a map entry written as servers write one: its key
// (field 1, bytes), then at most one value (field 2, of wire type wire).
func strictMapEntry(data []byte, wire int) (key []byte, val kubeproto.WireField, hasVal, ok bool) {
	i := 0
	if i < len(data) {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil || wf.Num != 1 || wf.Wire != kubeproto.WireBytes {
			return nil, val, false, false
		}
		key, i = wf.Data, next
	} else {
		return nil, val, false, false
	}
	if i < len(data) {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil || wf.Num != 2 || wf.Wire != wire || next != len(data) {
			return nil, val, false, false
		}
		return key, wf, true, true
	}
	return key, val, false, true
}

// value writes one value of f.
func (w *jsonWriter) value(p *jsonPlan, f *jsonField, wf kubeproto.WireField, depth int) bool {
	switch f.kind {
	case kubeproto.KindString:
		w.out = appendJSONString(w.out, wf.Data)
	case kubeproto.KindBool:
		w.out = strconv.AppendBool(w.out, wf.Varint != 0)
	case kubeproto.KindInt32:
		w.out = strconv.AppendInt(w.out, int64(int32(wf.Varint)), 10)
	case kubeproto.KindInt64:
		w.out = strconv.AppendInt(w.out, int64(wf.Varint), 10)
	case kubeproto.KindMessage:
		if f.sub.cacheable && len(wf.Data) >= minCachedMessage && len(wf.Data) <= maxCachedMessage &&
			depth+1+f.sub.depth <= maxProtoDepth {
			return w.cachedValue(f.sub, wf, depth)
		}
		w.out = append(w.out, '{')
		if _, ok := w.members(f.sub, wf.Data, depth+1, true); !ok {
			return false
		}
		w.out = append(w.out, '}')
	case kubeproto.KindTime, kubeproto.KindMicroTime:
		return w.time(f.kind, wf.Data)
	case kubeproto.KindIntOrString:
		if w.intOrString(wf.Data) {
			return true
		}
		return w.converted(p, f, wf)
	case kubeproto.KindQuantity:
		return w.quantity(p, f, wf)
	case kubeproto.KindRawExtension, kubeproto.KindJSON, kubeproto.KindFieldsV1:
		// The raw JSON is copied as it is, checked by the conversion;
		// so that Unstructured's scanner accepts the result, its nesting
		// must stay within the scanner's bound (each level takes two
		// bytes of the raw value at least).
		if 2*depth+8+len(wf.Data)/2 > maxDepth {
			return false
		}
		return w.converted(p, f, wf)
	default:
		return w.converted(p, f, wf)
	}
	return true
}

// converted writes a value converted by kubeproto.
func (w *jsonWriter) converted(p *jsonPlan, f *jsonField, wf kubeproto.WireField) bool {
	js, err := p.msg.ValueJSON(int(f.idx), wf)
	if err != nil {
		return false
	}
	w.out = append(w.out, js...)
	return true
}

// cachedQuantity is the conversion of one Quantity message.
type cachedQuantity struct {
	wire string
	json []byte
}

// quantityJSONCache remembers the conversion of recent Quantity messages
// by the hash of their bytes: a Quantity's JSON depends on its bytes
// alone, and a few quantities fill every pod's resources. Direct-mapped
// and lock-free, as the intern table: an entry never changes once
// published.
var quantityJSONCache [1024]atomic.Pointer[cachedQuantity]

// maxCachedQuantity bounds the Quantity messages quantityJSONCache holds.
const maxCachedQuantity = 64

// quantity writes a Quantity as kubeproto converts it (its canonical
// string), from quantityJSONCache when it holds the same bytes.
func (w *jsonWriter) quantity(p *jsonPlan, f *jsonField, wf kubeproto.WireField) bool {
	slot := &quantityJSONCache[maphash.Bytes(internSeed, wf.Data)%uint64(len(quantityJSONCache))]
	if q := slot.Load(); q != nil && q.wire == string(wf.Data) {
		w.out = append(w.out, q.json...)
		return true
	}
	js, err := p.msg.ValueJSON(int(f.idx), wf)
	if err != nil {
		return false
	}
	if len(wf.Data) <= maxCachedQuantity {
		slot.Store(&cachedQuantity{wire: string(wf.Data), json: js})
	}
	w.out = append(w.out, js...)
	return true
}

// time writes a Time (second precision) or MicroTime, as kubeproto does.
func (w *jsonWriter) time(k kubeproto.ValueKind, data []byte) bool {
	sec, nanos, err := timestamp(data)
	if err != nil {
		return false
	}
	if sec == zeroTimeSeconds && (k == kubeproto.KindTime || nanos == 0) {
		w.out = append(w.out, "null"...)
		return true
	}
	if k == kubeproto.KindTime {
		w.out = append(w.out, '"')
		w.out = time.Unix(sec, 0).UTC().AppendFormat(w.out, time.RFC3339)
		w.out = append(w.out, '"')
		return true
	}
	t := time.Unix(sec, int64(time.Duration(nanos).Truncate(time.Microsecond))).UTC()
	if t.IsZero() {
		w.out = append(w.out, "null"...)
		return true
	}
	w.out = append(w.out, '"')
	w.out = t.AppendFormat(w.out, "2006-01-02T15:04:05.000000Z07:00")
	w.out = append(w.out, '"')
	return true
}

// intOrString writes an IntOrString {type=1, intVal=2, strVal=3} whose
// fields have their usual wire types; false leaves any other to the
// conversion.
func (w *jsonWriter) intOrString(data []byte) bool {
	var typ, intVal uint64
	var strVal []byte
	for i := 0; i < len(data); {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil {
			return false
		}
		i = next
		switch wf.Num {
		case 1, 2:
			if wf.Wire != kubeproto.WireVarint {
				return false
			}
			if wf.Num == 1 {
				typ = wf.Varint
			} else {
				intVal = wf.Varint
			}
		case 3:
			if wf.Wire != kubeproto.WireBytes {
				return false
			}
			strVal = wf.Data
		}
	}
	switch typ {
	case 0:
		w.out = strconv.AppendInt(w.out, int64(int32(intVal)), 10)
	case 1:
		w.out = appendJSONString(w.out, strVal)
	default:
		return false
	}
	return true
}

// jsonPlain holds, for each byte, whether kubeproto.AppendJSONString
// copies it as it is: printable ASCII but for ", \, <, > and &.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends the protobuf string b as JSON, as
// kubeproto.AppendJSONString writes it, copying it whole when no byte
// needs escaping (nearly every string of an object).
func appendJSONString(dst, b []byte) []byte {
	for _, c := range b {
		if !jsonPlain[c] {
			return kubeproto.AppendJSONString(dst, bytesString(b))
		}
	}
	dst = append(dst, '"')
	dst = append(dst, b...)
	return append(dst, '"')
}
