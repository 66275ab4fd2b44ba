package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Field returns the value at path, decoded on demand: a string, bool, nil,
// json.Number (so that no integer is rounded through float64),
// map[string]any or []any. A path element selects a member of an object,
// or, written as a decimal index, an element of an array:
// Field("spec", "containers", "0", "image").
//
// Field with no path returns the whole object. ok is false when the path
// leads nowhere.
func (u *Unstructured) Field(path ...string) (value any, ok bool) {
	span, ok := u.fieldSpan(path)
	if !ok {
		return nil, false
	}
	v, err := decodeAny(span)
	if err != nil {
		return nil, false
	}
	return v, true
}

// FieldString returns the string at path; ok is false when the path leads
// nowhere or to something other than a string.
func (u *Unstructured) FieldString(path ...string) (value string, ok bool) {
	span, ok := u.fieldSpan(path)
	if !ok || len(span) == 0 || span[0] != '"' {
		return "", false
	}
	return unquote(span[1 : len(span)-1]), true
}

// fieldSpan finds the JSON bytes at path.
func (u *Unstructured) fieldSpan(path []string) ([]byte, bool) {
	if len(path) == 0 {
		b, err := u.MarshalJSON()
		return b, err == nil
	}
	switch path[0] {
	case "kind", "apiVersion":
		v := u.Kind
		if path[0] == "apiVersion" {
			v = u.APIVersion
		}
		if v == "" || len(path) > 1 {
			return nil, false
		}
		return appendString(nil, v), true
	case "metadata":
		m, err := appendObjectMeta(nil, &u.ObjectMeta, u.metaUnknown)
		if err != nil {
			return nil, false
		}
		return lookup(m, path[1:])
	}
	if u.rest == nil {
		return nil, false
	}
	return lookup(u.rest, path)
}

// lookup walks path through the checked JSON value v.
func lookup(v []byte, path []string) ([]byte, bool) {
	for _, key := range path {
		var found []byte
		s := scanner{data: v}
		var err error
		switch s.peek() {
		case '{':
			err = s.object(func(k []byte, escaped bool, _ int) error {
				if !keyIs(k, escaped, key) {
					return s.skipValue()
				}
				var err error
				found, err = s.valueSpan() // the last of repeated keys wins
				return err
			})
		case '[':
			idx, convErr := strconv.Atoi(key)
			if convErr != nil || idx < 0 {
				return nil, false
			}
			err = s.array(func(i int) error {
				if i != idx {
					return s.skipValue()
				}
				var err error
				found, err = s.valueSpan()
				return err
			})
		default:
			return nil, false
		}
		if err != nil || found == nil {
			return nil, false
		}
		v = found
	}
	return v, true
}

// decodeAny decodes one JSON value with numbers as json.Number.
func decodeAny(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Object decodes the whole object into a fresh map, with numbers as
// json.Number. Changing the map does not change u.
func (u *Unstructured) Object() (map[string]any, error) {
	b, err := u.MarshalJSON()
	if err != nil {
		return nil, err
	}
	v, err := decodeAny(b)
	if err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// UnmarshalContent decodes the whole object into v with encoding/json, for
// instance into a typed struct once its kind is known.
func (u *Unstructured) UnmarshalContent(v any) error {
	b, err := u.MarshalJSON()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("unmarshal %s %s: %w", u.Kind, Key(u), err)
	}
	return nil
}

// ErrNotObject is returned (wrapped) by SetField when the path runs through
// a value that is not an object.
var ErrNotObject = errors.New("not an object")

// SetField sets the value at path (members of objects only), creating
// missing objects on the way, and keeps the rest of the object as it was.
// value is encoded with encoding/json. Setting kind, apiVersion or a part
// of metadata updates the decoded fields; value must then fit them (kind
// must be a string, metadata.labels an object of strings...), or SetField
// fails and leaves u unchanged.
func (u *Unstructured) SetField(value any, path ...string) error {
	if len(path) == 0 {
		return errors.New("set field: empty path")
	}
	val, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("set field %s: %w", strings.Join(path, "."), err)
	}
	return u.editField(path, val)
}

// RemoveField removes the value at path and reports whether there was one.
// Removing kind or apiVersion empties it; removing metadata empties all of
// it.
func (u *Unstructured) RemoveField(path ...string) (bool, error) {
	if len(path) == 0 {
		return false, errors.New("remove field: empty path")
	}
	if _, ok := u.fieldSpan(path); !ok {
		return false, nil
	}
	return true, u.editField(path, nil)
}

// editField sets (val != nil) or removes (val == nil) the value at path.
func (u *Unstructured) editField(path []string, val []byte) error {
	name := strings.Join(path, ".")
	switch path[0] {
	case "kind", "apiVersion":
		var v string
		if len(path) > 1 {
			return fmt.Errorf("set field %s: %s is a string: %w", name, path[0], ErrNotObject)
		}
		if val != nil {
			s := scanner{data: val}
			var err error
			if v, err = s.stringValue(path[0]); err != nil {
				return fmt.Errorf("set field %s: %w", name, err)
			}
		}
		if path[0] == "kind" {
			u.Kind = v
		} else {
			u.APIVersion = v
		}
		return nil
	case "metadata":
		m := val
		if len(path) > 1 {
			cur, err := appendObjectMeta(nil, &u.ObjectMeta, u.metaUnknown)
			if err != nil {
				return fmt.Errorf("set field %s: %w", name, err)
			}
			if m, err = editPath(cur, path[1:], val, name); err != nil {
				return err
			}
		}
		var om ObjectMeta
		var raw rawMetadata
		if m != nil {
			s := scanner{data: m}
			if err := s.objectMeta(&om, &raw); err != nil {
				return fmt.Errorf("set field %s: %w", name, err)
			}
		}
		u.metaUnknown = ownRawMetadata(&raw, true)
		u.ObjectMeta = om
		return nil
	}
	rest := u.rest
	if rest == nil {
		rest = []byte("{}")
	}
	rest, err := editPath(rest, path, val, name)
	if err != nil {
		return err
	}
	if len(rest) <= 2 {
		rest = nil
	}
	u.rest = rest
	return nil
}

// editPath returns a new copy of the checked, compact JSON object obj with
// the value at path set to val, or removed if val is nil. Members keep
// their order; a new member goes last; repeated keys collapse to one.
func editPath(obj []byte, path []string, val []byte, name string) ([]byte, error) {
	key := path[0]
	var (
		members [][]byte
		old     []byte
		at      = -1
	)
	s := scanner{data: obj}
	err := s.object(func(k []byte, escaped bool, start int) error {
		span, err := s.valueSpan()
		if keyIs(k, escaped, key) {
			old, at = span, len(members)
			return err
		}
		members = append(members, obj[start:s.pos])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("set field %s: %w", name, err)
	}
	newVal := val
	if len(path) > 1 {
		sub := old
		switch {
		case sub == nil && val == nil:
			return obj, nil // nothing to remove
		case sub == nil || string(sub) == "null":
			sub = []byte("{}")
		case sub[0] != '{':
			if val == nil {
				return obj, nil
			}
			return nil, fmt.Errorf("set field %s: %s: %w", name, key, ErrNotObject)
		}
		if newVal, err = editPath(sub, path[1:], val, name); err != nil {
			return nil, err
		}
	}
	if newVal != nil {
		member := appendString(make([]byte, 0, len(key)+len(newVal)+3), key)
		member = append(member, ':')
		member = append(member, newVal...)
		if at < 0 {
			members = append(members, member)
		} else {
			members = append(members[:at], append([][]byte{member}, members[at:]...)...)
		}
	}
	size := 2
	for _, m := range members {
		size += len(m) + 1
	}
	return joinMembers(make([]byte, 0, size), members, false), nil
}
