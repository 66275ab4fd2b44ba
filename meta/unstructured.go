package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Unstructured holds any object, custom resources included, without a Go
// type for it, and cheaply.
//
// TypeMeta and ObjectMeta are decoded, so Unstructured is an Object the
// cache can key and track, and their fields can be read and assigned
// directly (u.Name, u.Labels) or through the setters. Everything else
// stays as compact JSON bytes: spec, status and unknown metadata fields are
// decoded only when asked for (Field, UnmarshalContent, Object). Holding a
// typical 5 KB pod this way costs about 1.2 times its JSON size; a tree of
// maps costs about six times.
//
// MarshalJSON writes kind, apiVersion and metadata from the decoded fields,
// so a change made through any of them is always encoded, followed by the
// rest of the object byte for byte: unknown fields and integers of any size
// survive a decode/encode round trip exactly.
//
// An Unstructured handed out by a cache is shared: do not modify it; use
// DeepCopy or Clone first. Reading it from several goroutines is safe.
type Unstructured struct {
	TypeMeta
	ObjectMeta

	// rest is every member of the object except kind, apiVersion and
	// metadata, as one compact JSON object, or nil for none. Its bytes are
	// never modified in place, so copies may share them.
	rest []byte
	// metaUnknown holds the metadata members ObjectMeta has no field for,
	// as one compact JSON object, or nil. Never modified in place either.
	metaUnknown []byte
}

// UnmarshalJSON decodes a JSON object into u, replacing all of its
// contents. The literal null leaves u unchanged. On error u is unchanged.
//
// Errors are *SyntaxError for malformed JSON and *TypeError when the input
// is not an object or kind, apiVersion or a metadata field has the wrong
// type.
func (u *Unstructured) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var n Unstructured
	s := scanner{data: data}
	if s.peek() != '{' {
		return s.typeError("object", "a JSON object")
	}
	var (
		spans     [16][]byte // most objects have few top-level members
		members   = spans[:0]
		raw       rawMetadata
		restBytes = 2 // the braces
	)
	err := s.object(func(key []byte, escaped bool, start int) error {
		if escaped {
			key = []byte(unquote(key))
		}
		if ok, err := s.headerMember(key, &n.TypeMeta, &n.ObjectMeta, &raw); ok {
			return err
		}
		if err := s.skipValue(); err != nil {
			return err
		}
		members = append(members, data[start:s.pos])
		restBytes += s.pos - start + 1
		return nil
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return err
	}
	if len(members) > 0 {
		n.rest = joinMembers(make([]byte, 0, restBytes), members, s.spaced)
	}
	n.metaUnknown = ownRawMetadata(&raw, s.spaced)
	*u = n
	return nil
}

// joinMembers appends {m1,m2,...} to dst, compacting each member if
// compact is set, and returns the result with its capacity cut to its
// length so that no later append can write into memory another slice
// sees.
func joinMembers(dst []byte, members [][]byte, compact bool) []byte {
	start := len(dst)
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		if compact {
			dst = appendCompact(dst, m)
		} else {
			dst = append(dst, m...)
		}
	}
	dst = append(dst, '}')
	return dst[start:len(dst):len(dst)]
}

// ownRawMetadata copies the unknown members of a decoded metadata object
// out of the input, into one new allocation; nil when there are none.
func ownRawMetadata(raw *rawMetadata, compact bool) (unknown []byte) {
	if len(raw.unknown) == 0 {
		return nil
	}
	size := 2
	for _, m := range raw.unknown {
		size += len(m) + 1
	}
	return joinMembers(make([]byte, 0, size), raw.unknown, compact)
}

func (u *Unstructured) decodeChecked(data []byte) error { return u.UnmarshalJSON(data) }

func isNull(data []byte) bool {
	return bytes.Equal(bytes.TrimSpace(data), []byte("null"))
}

// MarshalJSON encodes u as one compact JSON object: kind, apiVersion and
// metadata from the decoded fields (so every change to them shows), then
// the other members exactly as they were decoded or set. Every
// ObjectMeta encodes, so the error is always nil.
//
// The receiver is a value so that an Unstructured held by value encodes
// the same as a pointer to one.
func (u Unstructured) MarshalJSON() ([]byte, error) {
	return u.appendJSON(nil)
}

func (u *Unstructured) appendJSON(dst []byte) ([]byte, error) {
	m, err := appendObjectMeta(make([]byte, 0, 512+managedFieldsSize(u.ManagedFields)+len(u.metaUnknown)), &u.ObjectMeta, u.metaUnknown)
	if err != nil {
		return dst, err
	}
	dst = slicesGrow(dst, len(u.rest)+len(m)+len(u.Kind)+len(u.APIVersion)+40)
	dst = append(dst, '{')
	if u.Kind != "" {
		dst = append(dst, `"kind":`...)
		dst = appendString(dst, u.Kind)
		dst = append(dst, ',')
	}
	if u.APIVersion != "" {
		dst = append(dst, `"apiVersion":`...)
		dst = appendString(dst, u.APIVersion)
		dst = append(dst, ',')
	}
	dst = append(dst, `"metadata":`...)
	dst = append(dst, m...)
	if len(u.rest) > 2 {
		dst = append(dst, ',')
		dst = append(dst, u.rest[1:]...)
	} else {
		dst = append(dst, '}')
	}
	return dst, nil
}

func slicesGrow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	c := make([]byte, len(b), len(b)+n)
	copy(c, b)
	return c
}

// DeepCopy returns a copy of u that shares no mutable memory with it: maps,
// slices and pointers in ObjectMeta are copied. The raw bytes of the rest
// of the object are shared, which is safe because they are never modified
// in place.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	return &Unstructured{
		TypeMeta:    u.TypeMeta,
		ObjectMeta:  deepCopyObjectMeta(&u.ObjectMeta),
		rest:        u.rest,
		metaUnknown: u.metaUnknown,
	}
}

// ToUnstructured encodes v (any value that encodes to a JSON object, such
// as a typed object or a map) and decodes the result as an Unstructured.
func ToUnstructured(v any) (*Unstructured, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("to unstructured: %w", err)
	}
	u := new(Unstructured)
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("to unstructured: %w", err)
	}
	return u, nil
}

// SetKind sets the object's kind.
func (u *Unstructured) SetKind(kind string) { u.Kind = kind }

// SetAPIVersion sets the object's apiVersion, such as "apps/v1".
func (u *Unstructured) SetAPIVersion(apiVersion string) { u.APIVersion = apiVersion }

// SetName sets metadata.name.
func (u *Unstructured) SetName(name string) { u.Name = name }

// SetNamespace sets metadata.namespace.
func (u *Unstructured) SetNamespace(namespace string) { u.Namespace = namespace }

// SetResourceVersion sets metadata.resourceVersion.
func (u *Unstructured) SetResourceVersion(rv string) { u.ResourceVersion = rv }

// SetUID sets metadata.uid.
func (u *Unstructured) SetUID(uid string) { u.UID = uid }

// SetLabels replaces metadata.labels; u keeps the map, not a copy.
func (u *Unstructured) SetLabels(labels map[string]string) { u.Labels = labels }

// SetAnnotations replaces metadata.annotations; u keeps the map, not a copy.
func (u *Unstructured) SetAnnotations(annotations map[string]string) { u.Annotations = annotations }
