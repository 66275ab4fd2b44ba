package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Fast path: the metadata codec. This file decodes and encodes ObjectMeta
// by hand for Unstructured and PartialObjectMetadata. The plain version,
// encoding/json into ObjectMeta's struct, checks the input in one pass,
// decodes in a second, matches keys case-insensitively and allocates every
// string; this one makes one pass with the scanner, matches field names
// exactly (as the API server does) and interns short frequent strings
// (intern.go). BenchmarkDecodePartialObjectMetadata against
// BenchmarkJSONUnmarshalPartialObjectMetadata measures it (go test -run
// '^$' -bench . -benchmem ./meta/; figures in docs/performance.md, "meta
// and selector"). A user's own types go through the struct decoder of
// fast_decode_struct.go instead, because an UnmarshalJSON method on
// ObjectMeta would be promoted into, and take over, every struct that
// embeds it.

// TypeError reports a JSON value of the wrong type for a field the decoder
// needs, such as a number where metadata.name should be a string.
type TypeError struct {
	Offset int    // byte offset of the value
	Field  string // dotted path, such as "metadata.labels"
	Want   string // what the field must hold, such as "a string"
	Got    string // what was found, such as "number"
}

// Error returns "<field> at byte N: expected <want>, found <got>".
func (e *TypeError) Error() string {
	return fmt.Sprintf("%s at byte %d: expected %s, found %s", e.Field, e.Offset, e.Want, e.Got)
}

// typeError checks and skips the value at s.pos and reports it as the wrong
// type, unless it is not even well-formed JSON.
func (s *scanner) typeError(field, want string) error {
	offset := s.pos
	got := "number"
	switch s.peek() {
	case '{':
		got = "object"
	case '[':
		got = "array"
	case '"':
		got = "string"
	case 't', 'f':
		got = "boolean"
	case 'n':
		got = "null"
	}
	if err := s.skipValue(); err != nil {
		return err
	}
	return &TypeError{Offset: offset, Field: field, Want: want, Got: got}
}

// stringValue decodes a string; null reads as "".
func (s *scanner) stringValue(field string) (string, error) {
	switch s.peek() {
	case '"':
		content, _, err := s.str()
		if err != nil {
			return "", err
		}
		return unquote(content), nil
	case 'n':
		return "", s.literal("null")
	}
	return "", s.typeError(field, "a string")
}

// int64Value decodes an integer; null reads as 0.
func (s *scanner) int64Value(field string) (int64, error) {
	c := s.peek()
	if c == 'n' {
		return 0, s.literal("null")
	}
	if c != '-' && !isDigit(c) {
		return 0, s.typeError(field, "an integer")
	}
	start := s.pos
	if err := s.number(); err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(s.data[start:s.pos]), 10, 64)
	if err != nil {
		return 0, &TypeError{Offset: start, Field: field, Want: "a 64-bit integer", Got: string(s.data[start:s.pos])}
	}
	return n, nil
}

// boolPtr decodes true or false; null reads as nil.
func (s *scanner) boolPtr(field string) (*bool, error) {
	switch s.peek() {
	case 'n':
		return nil, s.literal("null")
	case 't':
		v := true
		return &v, s.literal("true")
	case 'f':
		v := false
		return &v, s.literal("false")
	}
	return nil, s.typeError(field, "a boolean")
}

// timeValue decodes a timestamp into t.
func (s *scanner) timeValue(field string, t *Time) error {
	start := s.pos
	span, err := s.valueSpan()
	if err != nil {
		return err
	}
	if err := t.UnmarshalJSON(span); err != nil {
		return &TypeError{Offset: start, Field: field, Want: "an RFC 3339 timestamp", Got: truncate(span, 40)}
	}
	return nil
}

// stringMap decodes an object of strings; null reads as nil. Keys and
// values no longer than internMax are interned.
func (s *scanner) stringMap(field string) (map[string]string, error) {
	switch s.peek() {
	case 'n':
		return nil, s.literal("null")
	case '{':
	default:
		return nil, s.typeError(field, "an object of strings")
	}
	m := map[string]string{}
	err := s.object(func(key []byte, escaped bool, _ int) error {
		v, err := s.internedStringValue(field)
		if err != nil {
			return err
		}
		m[internedContent(key, escaped)] = v
		return nil
	})
	return m, err
}

// stringSlice decodes an array of strings, interned; null reads as nil.
func (s *scanner) stringSlice(field string) ([]string, error) {
	switch s.peek() {
	case 'n':
		return nil, s.literal("null")
	case '[':
	default:
		return nil, s.typeError(field, "an array of strings")
	}
	out := []string{}
	err := s.array(func(int) error {
		v, err := s.internedStringValue(field)
		out = append(out, v)
		return err
	})
	return out, err
}

// ownerReferences decodes metadata.ownerReferences; null reads as nil.
func (s *scanner) ownerReferences() ([]OwnerReference, error) {
	// An object has one owner, or none, far more often than more.
	return objectList(s, "metadata.ownerReferences", "an array of owner references", 1, func(ref *OwnerReference, key []byte) error {
		var err error
		switch string(key) {
		case "apiVersion":
			ref.APIVersion, err = s.internedStringValue("")
		case "kind":
			ref.Kind, err = s.internedStringValue("")
		case "name":
			ref.Name, err = s.internedStringValue("")
		case "uid":
			ref.UID, err = s.internedStringValue("")
		case "controller":
			ref.Controller, err = s.boolPtr("")
		case "blockOwnerDeletion":
			ref.BlockOwnerDeletion, err = s.boolPtr("")
		default:
			err = s.skipValue()
		}
		return err
	})
}

// memberAt names the member key of element i of the array field in err
// when it is a TypeError decoded without a field name: the path is built
// only for an error.
func memberAt(err error, field string, i int, key []byte) error {
	if err == nil {
		return nil
	}
	var te *TypeError
	if errors.As(err, &te) && te.Field == "" {
		te.Field = field + "[" + strconv.Itoa(i) + "]." + string(key)
	}
	return err
}

// objectList decodes an array of objects at s.pos into a slice sized
// exactly: null reads as nil, [] as an empty slice, a null element as a
// zero E. member decodes the value of the member named key (unescaped) of
// the element e, reporting a wrong type as a TypeError without a field
// name, which objectList fills in ("metadata.ownerReferences[0].kind").
// want describes the array in a TypeError; room is how many elements to
// make room for before the first growth, the usual length.
func objectList[E any](s *scanner, field, want string, room int, member func(e *E, key []byte) error) ([]E, error) {
	switch s.peek() {
	case 'n':
		return nil, s.literal("null")
	case '[':
	default:
		return nil, s.typeError(field, want)
	}
	// Each element is decoded where it will stay, through a pointer into
	// out: an element decoded in a variable of its own would escape to
	// the heap (member is a func value) and be copied after.
	out := make([]E, 0, room)
	var zero E
	err := s.array(func(i int) error {
		out = append(out, zero)
		if s.null() {
			return nil
		}
		if s.peek() != '{' {
			return s.typeError(field+"["+strconv.Itoa(i)+"]", "an object")
		}
		e := &out[len(out)-1]
		return s.object(func(key []byte, escaped bool, _ int) error {
			if escaped {
				key = []byte(unquote(key))
			}
			return memberAt(member(e, key), field, i, key)
		})
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return []E{}, nil // not holding on to the room made
	}
	if cap(out) != len(out) {
		out = slices.Clone(out) // held as long as the object: no spare capacity
	}
	return out, nil
}

// rawMetadata holds the parts of a metadata object that are kept as JSON,
// as spans of the scanner's input: the members whose keys ObjectMeta does
// not know (each "key":value).
type rawMetadata struct {
	unknown [][]byte
}

// headerMember decodes the value of a top-level member named key when it
// is one of an object's header (kind, apiVersion or metadata) into t, m and
// raw, and reports whether it was; any other member's value is left unread.
// A repeated metadata member replaces what the earlier one set.
func (s *scanner) headerMember(key []byte, t *TypeMeta, m *ObjectMeta, raw *rawMetadata) (bool, error) {
	var err error
	switch string(key) {
	case "kind":
		t.Kind, err = s.internedStringValue("kind")
	case "apiVersion":
		t.APIVersion, err = s.internedStringValue("apiVersion")
	case "metadata":
		*m, *raw = ObjectMeta{}, rawMetadata{}
		err = s.objectMeta(m, raw)
	default:
		return false, nil
	}
	return true, err
}

// openMetadata reads the start of a metadata value: it reports true for
// an object, left to read, and false after consuming a null; any other
// value is a *TypeError.
func (s *scanner) openMetadata() (bool, error) {
	switch s.peek() {
	case 'n':
		return false, s.literal("null")
	case '{':
		return true, nil
	}
	return false, s.typeError("metadata", "an object")
}

// objectMeta decodes a metadata object (or null) at s.pos into m, which
// must be zero. Unknown members go to raw.
func (s *scanner) objectMeta(m *ObjectMeta, raw *rawMetadata) error {
	if open, err := s.openMetadata(); !open {
		return err
	}
	return s.object(func(key []byte, escaped bool, start int) error {
		if escaped {
			key = []byte(unquote(key))
		}
		var err error
		switch string(key) {
		case "name":
			m.Name, err = s.stringValue("metadata.name")
		case "generateName":
			m.GenerateName, err = s.internedStringValue("metadata.generateName")
		case "namespace":
			m.Namespace, err = s.internedStringValue("metadata.namespace")
		case "uid":
			m.UID, err = s.stringValue("metadata.uid")
		case "resourceVersion":
			m.ResourceVersion, err = s.stringValue("metadata.resourceVersion")
		case "generation":
			m.Generation, err = s.int64Value("metadata.generation")
		case "creationTimestamp":
			m.CreationTimestamp = Time{}
			err = s.timeValue("metadata.creationTimestamp", &m.CreationTimestamp)
		case "deletionTimestamp":
			m.DeletionTimestamp = nil
			if !s.null() {
				m.DeletionTimestamp = new(Time)
				err = s.timeValue("metadata.deletionTimestamp", m.DeletionTimestamp)
				if m.DeletionTimestamp.IsZero() {
					m.DeletionTimestamp = nil // "" means unset, as null does
				}
			}
		case "deletionGracePeriodSeconds":
			m.DeletionGracePeriodSeconds = nil
			if !s.null() {
				var n int64
				n, err = s.int64Value("metadata.deletionGracePeriodSeconds")
				m.DeletionGracePeriodSeconds = &n
			}
		case "labels":
			m.Labels, err = s.stringMap("metadata.labels")
		case "annotations":
			m.Annotations, err = s.stringMap("metadata.annotations")
		case "ownerReferences":
			m.OwnerReferences, err = s.ownerReferences()
		case "finalizers":
			m.Finalizers, err = s.stringSlice("metadata.finalizers")
		case "managedFields":
			m.ManagedFields, err = s.managedFields("metadata.managedFields")
		default:
			if err = s.skipValue(); err == nil {
				raw.unknown = append(raw.unknown, s.data[start:s.pos])
			}
		}
		return err
	})
}

// appendObjectMeta appends the JSON encoding of m followed by the members
// of unknown (a JSON object, or nil).
func appendObjectMeta(dst []byte, m *ObjectMeta, unknown []byte) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return dst, fmt.Errorf("encode metadata: %w", err)
	}
	if len(unknown) <= 2 {
		return append(dst, b...), nil
	}
	if len(b) > 2 {
		dst = append(dst, b[:len(b)-1]...)
		dst = append(dst, ',')
	} else {
		dst = append(dst, '{')
	}
	return append(dst, unknown[1:]...), nil
}

// deepCopyObjectMeta returns a copy of m that shares no memory with it.
func deepCopyObjectMeta(m *ObjectMeta) ObjectMeta {
	c := *m
	if m.DeletionTimestamp != nil {
		t := *m.DeletionTimestamp
		c.DeletionTimestamp = &t
	}
	if m.DeletionGracePeriodSeconds != nil {
		n := *m.DeletionGracePeriodSeconds
		c.DeletionGracePeriodSeconds = &n
	}
	c.Labels = maps.Clone(m.Labels)
	c.Annotations = maps.Clone(m.Annotations)
	c.Finalizers = slices.Clone(m.Finalizers)
	c.ManagedFields = slices.Clone(m.ManagedFields) // entries hold only immutable values
	if m.OwnerReferences != nil {
		c.OwnerReferences = make([]OwnerReference, len(m.OwnerReferences))
		for i, r := range m.OwnerReferences {
			if r.Controller != nil {
				v := *r.Controller
				r.Controller = &v
			}
			if r.BlockOwnerDeletion != nil {
				v := *r.BlockOwnerDeletion
				r.BlockOwnerDeletion = &v
			}
			c.OwnerReferences[i] = r
		}
	}
	return c
}

// appendString appends s as a JSON string, escaped as encoding/json does.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
