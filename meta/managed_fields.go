package meta

import (
	"bytes"
	"time"
	"unique"
)

// This file holds metadata.managedFields: the entries server-side apply
// keeps, one per manager and operation, each with the set of fields it
// owns (fieldsV1). The sets are most of an entry's bytes, and objects made
// by one controller (the pods of one ReplicaSet) own the same sets, so a
// set is stored once, canonicalized, and shared by every entry that holds
// it.

// ManagedFields is the list in metadata.managedFields, in the order the
// server sent it. A nil ManagedFields encodes as null (and is omitted from
// ObjectMeta); ParseManagedFields and MarshalJSON convert to and from the
// wire form.
type ManagedFields []ManagedFieldsEntry

// ManagedFieldsEntry records which fields one manager owns through one
// kind of operation. Its members encode in the server's order: manager,
// operation, apiVersion, time, fieldsType, fieldsV1, subresource. Members
// of an entry that this type does not know are dropped when it is
// decoded; the API server sends none.
//
// An entry holds only strings, a Time and a FieldsV1, all immutable, so
// copying an entry (or a ManagedFields with slices.Clone) copies it deeply:
// copies share no memory that either can change.
type ManagedFieldsEntry struct {
	// Manager names the workflow that owns the fields ("kubelet").
	Manager string `json:"manager,omitempty"`
	// Operation is "Apply" or "Update".
	Operation string `json:"operation,omitempty"`
	// APIVersion is the version of the object the fields were set through.
	APIVersion string `json:"apiVersion,omitempty"`
	// Time is when the entry last changed; zero when the server sent none.
	Time Time `json:"time,omitzero"`
	// FieldsType names the format of FieldsV1; the only one is "FieldsV1".
	FieldsType string `json:"fieldsType,omitempty"`
	// FieldsV1 is the set of fields owned; zero when the server sent none.
	FieldsV1 FieldsV1 `json:"fieldsV1,omitzero"`
	// Subresource is the subresource written through ("status"), or "".
	Subresource string `json:"subresource,omitempty"`
}

// FieldsV1 is a set of owned fields in the server's FieldsV1 format: a
// JSON object kept as its compact text, never interpreted by kubecache.
//
// A FieldsV1 is an immutable value: equal sets are stored once, shared by
// every FieldsV1 that holds them across all objects, and freed when none
// holds them any more. Sharing is safe because nothing can change the
// text, so objects that hold equal sets still share no mutable memory.
// FieldsV1 values are comparable with ==, which compares the sets' text.
// The zero FieldsV1 holds nothing and encodes as null.
type FieldsV1 struct {
	text unique.Handle[string]
}

// NewFieldsV1 returns the FieldsV1 holding the JSON value raw, compacted.
// It fails with a *SyntaxError when raw is not one JSON value; null gives
// the zero FieldsV1.
func NewFieldsV1(raw []byte) (FieldsV1, error) {
	s := scanner{data: raw}
	f, err := s.fieldsV1()
	if err != nil {
		return FieldsV1{}, err
	}
	return f, s.end()
}

// IsZero reports whether f holds no set.
func (f FieldsV1) IsZero() bool { return f == FieldsV1{} }

// String returns the set's compact JSON text, or "" for the zero FieldsV1.
func (f FieldsV1) String() string {
	if f.IsZero() {
		return ""
	}
	return f.text.Value()
}

// MarshalJSON returns the set's JSON text exactly as it was decoded
// (compacted), or null for the zero FieldsV1.
func (f FieldsV1) MarshalJSON() ([]byte, error) {
	if f.IsZero() {
		return []byte("null"), nil
	}
	return []byte(f.text.Value()), nil
}

// UnmarshalJSON stores the JSON value data, compacted. null leaves f as it
// is, as encoding/json does for values it decodes itself.
func (f *FieldsV1) UnmarshalJSON(data []byte) error {
	s := scanner{data: data}
	if s.null() {
		return s.end()
	}
	v, err := s.fieldsV1()
	if err != nil {
		return err
	}
	if err := s.end(); err != nil {
		return err
	}
	*f = v
	return nil
}

// fieldsV1 decodes the value at s.pos as a FieldsV1; null is the zero one.
func (s *scanner) fieldsV1() (FieldsV1, error) {
	if s.null() {
		return FieldsV1{}, nil
	}
	// spaced tells whether the set itself holds whitespace: the server's
	// compact sets are stored as they are, without a second pass.
	s.skipSpace()
	outer := s.spaced
	s.spaced = false
	span, err := s.valueSpan()
	spaced := s.spaced
	s.spaced = outer || spaced
	if err != nil {
		return FieldsV1{}, err
	}
	if spaced {
		span = appendCompact(make([]byte, 0, len(span)), span)
	}
	return FieldsV1{text: unique.Make(string(span))}, nil
}

// ParseManagedFields decodes metadata.managedFields from its JSON form, as
// ObjectMeta's decoders do: null or empty input gives nil, entries' unknown
// members are dropped. A malformed input is a *SyntaxError, a value of the
// wrong type a *TypeError.
func ParseManagedFields(raw []byte) (ManagedFields, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	s := scanner{data: raw}
	m, err := s.managedFields("managedFields")
	if err != nil {
		return nil, err
	}
	return m, s.end()
}

// MarshalJSON encodes m compactly in the server's form; nil encodes as
// null. A list decoded from the server's compact JSON encodes back to the
// same bytes.
func (m ManagedFields) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	return m.appendJSON(make([]byte, 0, managedFieldsSize(m))), nil
}

// managedFieldsSize estimates the length of m's JSON encoding.
func managedFieldsSize(m ManagedFields) int {
	size := 2
	for i := range m {
		size += 160 + len(m[i].FieldsV1.String())
	}
	return size
}

// appendJSON appends m's JSON encoding (m is not nil).
func (m ManagedFields) appendJSON(dst []byte) []byte {
	dst = append(dst, '[')
	for i := range m {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = m[i].appendJSON(dst)
	}
	return append(dst, ']')
}

// appendJSON appends e's JSON encoding, members in the server's order and
// empty ones omitted, as encoding/json would write the struct.
func (e *ManagedFieldsEntry) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	start := len(dst)
	member := func(name string) {
		if len(dst) > start {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
	}
	str := func(name, v string) {
		if v != "" {
			member(name)
			dst = appendString(dst, v)
		}
	}
	str("manager", e.Manager)
	str("operation", e.Operation)
	str("apiVersion", e.APIVersion)
	if !e.Time.IsZero() {
		member("time")
		dst = append(dst, '"')
		dst = e.Time.UTC().AppendFormat(dst, time.RFC3339)
		dst = append(dst, '"')
	}
	str("fieldsType", e.FieldsType)
	if !e.FieldsV1.IsZero() {
		member("fieldsV1")
		dst = append(dst, e.FieldsV1.text.Value()...)
	}
	str("subresource", e.Subresource)
	return append(dst, '}')
}

// managedFields decodes metadata.managedFields at s.pos; null reads as
// nil, [] as an empty list. Keys are matched exactly, as the API server
// does; the strings of an entry are interned (they repeat across objects).
func (s *scanner) managedFields(field string) (ManagedFields, error) {
	// Two entries, a controller's create and its status writes, is the
	// common case.
	return objectList(s, field, "an array of managed fields entries", 2, func(e *ManagedFieldsEntry, key []byte) error {
		var err error
		switch string(key) {
		case "manager":
			e.Manager, err = s.internedStringValue("")
		case "operation":
			e.Operation, err = s.internedStringValue("")
		case "apiVersion":
			e.APIVersion, err = s.internedStringValue("")
		case "time":
			err = s.timeValue("", &e.Time)
		case "fieldsType":
			e.FieldsType, err = s.internedStringValue("")
		case "fieldsV1":
			var f FieldsV1
			if f, err = s.fieldsV1(); err == nil && !f.IsZero() {
				e.FieldsV1 = f // null leaves it, as encoding/json does
			}
		case "subresource":
			e.Subresource, err = s.internedStringValue("")
		default:
			err = s.skipValue()
		}
		return err
	})
}
