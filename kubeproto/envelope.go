package kubeproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Magic starts every Kubernetes protobuf body: "k8s" and a zero byte.
var Magic = []byte("k8s\x00")

// ErrUnknownKind is wrapped by every error about an (apiVersion, kind)
// the table does not hold (custom resources, for one: a real server
// serves those in JSON and YAML only).
var ErrUnknownKind = errors.New("no protobuf message for this kind")

// errTooLarge bounds what a conversion may produce.
var errTooLarge = errors.New("kubeproto: conversion output exceeds its bound")

// outputLimit is the most a conversion may write for an input of n
// bytes: zero values that the input leaves out are written out in full
// (an empty container in JSON is a dozen fields in protobuf), so the
// bound is generous but finite.
func outputLimit(n int) int { return 64*n + 1<<20 }

// Known reports whether the table has a message for (apiVersion, kind).
func Known(apiVersion, kind string) bool {
	r, err := schema()
	return err == nil && r.kinds[[2]string{apiVersion, kind}] != nil
}

func lookup(apiVersion, kind string) (*message, error) {
	r, err := schema()
	if err != nil {
		return nil, err
	}
	m := r.kinds[[2]string{apiVersion, kind}]
	if m == nil {
		return nil, fmt.Errorf("%w: apiVersion %q, kind %q", ErrUnknownKind, apiVersion, kind)
	}
	return m, nil
}

// typeMetaOf reads apiVersion and kind from a parsed JSON object.
func typeMetaOf(v *jsonValue) (apiVersion, kind string, err error) {
	if v.kind != jObject {
		return "", "", errors.New("json: the object is not a JSON object")
	}
	for _, mem := range v.members {
		if mem.value.kind != jString {
			continue
		}
		switch mem.name {
		case "apiVersion":
			apiVersion = mem.value.str
		case "kind":
			kind = mem.value.str
		}
	}
	return apiVersion, kind, nil
}

// Encode converts the JSON form of an object that names its apiVersion
// and kind to the protobuf body a real server writes for it: Magic, then
// a runtime.Unknown holding typeMeta {apiVersion, kind} and the object's
// message as raw.
func Encode(objectJSON []byte) ([]byte, error) {
	v, err := parseJSON(objectJSON)
	if err != nil {
		return nil, err
	}
	apiVersion, kind, err := typeMetaOf(&v)
	if err != nil {
		return nil, err
	}
	raw, err := encodeValue(apiVersion, kind, &v, len(objectJSON))
	if err != nil {
		return nil, err
	}
	return AppendEnvelope(nil, apiVersion, kind, raw), nil
}

// EncodeMessage converts the JSON form of an object of the given
// apiVersion and kind to its bare protobuf message, without envelope:
// the form of an item inside a list and of a cached object.
func EncodeMessage(apiVersion, kind string, objectJSON []byte) ([]byte, error) {
	v, err := parseJSON(objectJSON)
	if err != nil {
		return nil, err
	}
	return encodeValue(apiVersion, kind, &v, len(objectJSON))
}

func encodeValue(apiVersion, kind string, v *jsonValue, n int) ([]byte, error) {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	if v.kind != jObject {
		return nil, fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", v.raw[:min(len(v.raw), 1)], shortName(m.name))
	}
	e := encoder{out: make([]byte, 0, n*3/4+16), limit: outputLimit(n)}
	if err := e.messageBody(m, v); err != nil {
		return nil, err
	}
	if len(e.out) > e.limit {
		return nil, errTooLarge
	}
	return e.out, nil
}

// AppendEnvelope appends Magic and the runtime.Unknown wrapping message
// (the object's bare message) to dst.
func AppendEnvelope(dst []byte, apiVersion, kind string, message []byte) []byte {
	dst = AppendEnvelopeHeader(dst, apiVersion, kind, len(message))
	dst = append(dst, message...)
	return AppendEnvelopeTrailer(dst)
}

// AppendEnvelopeHeader appends what comes before the object's message in
// a body: Magic, the envelope's typeMeta and the tag and length of raw,
// for a message of messageLen bytes. With AppendEnvelopeTrailer after the
// message it is AppendEnvelope, for a message written in pieces (a list
// streamed item by item, see AppendListItem).
func AppendEnvelopeHeader(dst []byte, apiVersion, kind string, messageLen int) []byte {
	tmLen := 2 + varintLen(uint64(len(apiVersion))) + len(apiVersion) + varintLen(uint64(len(kind))) + len(kind)
	dst = append(dst, Magic...)
	dst = appendTag(dst, 1, wireBytes)
	dst = appendVarint(dst, uint64(tmLen))
	dst = appendStringField(dst, 1, apiVersion)
	dst = appendStringField(dst, 2, kind)
	dst = appendTag(dst, 2, wireBytes)
	return appendVarint(dst, uint64(messageLen))
}

// AppendEnvelopeTrailer appends the envelope's fields after raw: empty
// contentEncoding and contentType, as a real server writes them.
func AppendEnvelopeTrailer(dst []byte) []byte {
	return append(dst, 0x1a, 0, 0x22, 0)
}

// AppendListItem appends item (an object's bare message) as an element of
// a list message's items (field 2); a list message is its metadata
// (field 1) followed by its items.
func AppendListItem(dst, item []byte) []byte {
	return appendBytesField(dst, 2, item)
}

// AppendListItemHeader appends the tag and length AppendListItem writes
// before an item of n bytes, for a caller that writes the item itself.
func AppendListItemHeader(dst []byte, n int) []byte {
	dst = appendTag(dst, 2, wireBytes)
	return appendVarint(dst, uint64(n))
}

// ListItemSize is how many bytes AppendListItem adds for an item of n
// bytes.
func ListItemSize(n int) int { return 1 + varintLen(uint64(n)) + n }

// Envelope is a decoded runtime.Unknown.
type Envelope struct {
	APIVersion, Kind string
	// Raw is the object's message (it aliases the input).
	Raw                          []byte
	ContentEncoding, ContentType string
}

// ParseEnvelope reads Magic and the runtime.Unknown of a protobuf body.
func ParseEnvelope(body []byte) (Envelope, error) {
	if len(body) == 0 {
		return Envelope{}, errors.New("empty data")
	}
	if !bytes.HasPrefix(body, Magic) {
		return Envelope{}, errors.New("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]")
	}
	var env Envelope
	data := body[len(Magic):]
	for i := 0; i < len(data); {
		wf, next, err := readField(data, i)
		if err != nil {
			return Envelope{}, err
		}
		i = next
		if wf.num > 4 {
			continue
		}
		if wf.wire != wireBytes {
			return Envelope{}, fmt.Errorf("proto: wrong wireType = %d for field %d of Unknown", wf.wire, wf.num)
		}
		switch wf.num {
		case 1:
			fs, err := readSmall(wf.data)
			if err != nil || fs[1].present && fs[1].wire != wireBytes || fs[2].present && fs[2].wire != wireBytes {
				return Envelope{}, fmt.Errorf("Unknown: bad typeMeta: %v", err)
			}
			env.APIVersion, env.Kind = string(fs[1].data), string(fs[2].data)
		case 2:
			env.Raw = wf.data
		case 3:
			env.ContentEncoding = string(wf.data)
		case 4:
			env.ContentType = string(wf.data)
		}
	}
	return env, nil
}

// Decode converts a protobuf body (Magic and runtime.Unknown) to the JSON
// a real server writes for the object, kind and apiVersion first.
func Decode(body []byte) ([]byte, error) {
	env, err := ParseEnvelope(body)
	if err != nil {
		return nil, err
	}
	if env.ContentEncoding != "" || (env.ContentType != "" && env.ContentType != "application/vnd.kubernetes.protobuf") {
		return nil, fmt.Errorf("unsupported content encoding %q or type %q in the envelope", env.ContentEncoding, env.ContentType)
	}
	return DecodeMessage(env.APIVersion, env.Kind, env.Raw, true)
}

// DecodeMessage converts the bare message of an object of the given
// apiVersion and kind to JSON. withTypeMeta writes kind and apiVersion
// (an object on its own); without it they are left out (an item of a
// list).
func DecodeMessage(apiVersion, kind string, message []byte, withTypeMeta bool) ([]byte, error) {
	m, err := lookup(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	d := decoder{out: make([]byte, 0, len(message)*2+16), limit: outputLimit(len(message))}
	if withTypeMeta {
		d.apiVersion, d.kind = apiVersion, kind
	}
	if err := d.message(m, message, true); err != nil {
		return nil, err
	}
	if len(d.out) > d.limit {
		return nil, errTooLarge
	}
	return d.out, nil
}

// MaxFrameSize bounds one watch frame read by ReadFrame.
const MaxFrameSize = 64 << 20

// ReadFrame reads one length-prefixed watch frame (a 4-byte big-endian
// length, then that many bytes) from r. A clean end of stream before a
// frame is io.EOF; a frame longer than max is an error, read no further.
func ReadFrame(r io.Reader, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("watch frame header: %w", err)
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if uint64(n) > uint64(max) {
		return nil, fmt.Errorf("watch frame of %d bytes exceeds the limit of %d", n, max)
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(r, frame); err != nil {
		return nil, fmt.Errorf("watch frame body: %w", io.ErrUnexpectedEOF)
	}
	return frame, nil
}

// AppendWatchFrame appends one watch frame: the 4-byte big-endian length,
// then a metav1.WatchEvent {type, object: RawExtension{raw: object}}
// without Magic or envelope around it. object is the event's object as a
// protobuf body (Magic and Unknown), as a real server writes it.
func AppendWatchFrame(dst []byte, eventType string, object []byte) []byte {
	dst = AppendWatchFrameHeader(dst, eventType, len(object))
	return append(dst, object...)
}

// AppendWatchFrameHeader appends what AppendWatchFrame writes before the
// object's bytes, for an object of objectLen bytes that the caller writes
// itself.
func AppendWatchFrameHeader(dst []byte, eventType string, objectLen int) []byte {
	rawLen := 1 + varintLen(uint64(objectLen)) + objectLen
	n := 1 + varintLen(uint64(len(eventType))) + len(eventType) + 1 + varintLen(uint64(rawLen)) + rawLen
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	dst = appendStringField(dst, 1, eventType)
	dst = appendTag(dst, 2, wireBytes)
	dst = appendVarint(dst, uint64(rawLen))
	dst = appendTag(dst, 1, wireBytes)
	return appendVarint(dst, uint64(objectLen))
}

// ParseWatchEvent reads a watch frame's WatchEvent (without the length
// prefix): its type and its object's protobuf body.
func ParseWatchEvent(frame []byte) (eventType string, object []byte, err error) {
	for i := 0; i < len(frame); {
		wf, next, err := readField(frame, i)
		if err != nil {
			return "", nil, fmt.Errorf("WatchEvent: %w", err)
		}
		i = next
		switch {
		case wf.num == 1 && wf.wire == wireBytes:
			eventType = string(wf.data)
		case wf.num == 2 && wf.wire == wireBytes:
			fs, err := readSmall(wf.data)
			if err != nil || fs[1].present && fs[1].wire != wireBytes {
				return "", nil, fmt.Errorf("WatchEvent: bad object: %v", err)
			}
			object = fs[1].data
		case wf.num <= 2:
			return "", nil, fmt.Errorf("proto: wrong wireType = %d for field %d of WatchEvent", wf.wire, wf.num)
		}
	}
	return eventType, object, nil
}

// DecodeWatchEvent converts a watch frame's WatchEvent (without the
// length prefix) to the JSON line a real server writes for it:
// {"type":…,"object":…}.
func DecodeWatchEvent(frame []byte) ([]byte, error) {
	eventType, object, err := ParseWatchEvent(frame)
	if err != nil {
		return nil, err
	}
	obj, err := Decode(object)
	if err != nil {
		return nil, fmt.Errorf("WatchEvent object: %w", err)
	}
	out := append([]byte(`{"type":`), AppendJSONString(nil, eventType)...)
	out = append(out, `,"object":`...)
	out = append(out, obj...)
	return append(out, '}'), nil
}

// GroupVersionKind names one kind the table holds.
type GroupVersionKind struct {
	APIVersion, Kind string
}

// Kinds lists every (apiVersion, kind) the table holds, in table order.
func Kinds() []GroupVersionKind {
	out := make([]GroupVersionKind, 0, len(generatedKinds))
	for _, k := range generatedKinds {
		out = append(out, GroupVersionKind{k.apiVersion, k.kind})
	}
	return out
}
