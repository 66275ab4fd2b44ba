package meta

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// This file holds the struct decoder's leaf decoders (fast_decode_struct.go
// builds the plan that calls them): strings, interned or not, booleans,
// integers, floats, Time, RawMessage, FieldsV1, and the hand-off of one
// value to encoding/json (a field's UnmarshalJSON, or a type the fast path
// does not know). Each reads one value at the scanner's position or
// returns errSlowPath where encoding/json might decide differently.

// stringContent reads a JSON string; null reports ok false and leaves the
// value alone, as encoding/json does.
func stringContent(s *scanner) (str string, isNull bool, err error) {
	switch s.peek() {
	case '"':
		content, _, err := s.str()
		if err != nil {
			return "", false, err
		}
		return unquote(content), false, nil
	case 'n':
		return "", true, s.literal("null")
	}
	return "", false, errSlowPath
}

func decodeString(s *scanner, v reflect.Value) error {
	str, isNull, err := stringContent(s)
	if err != nil || isNull {
		return err
	}
	v.SetString(str)
	return nil
}

func decodeInternedString(s *scanner, v reflect.Value) error {
	switch s.peek() {
	case '"':
		content, escaped, err := s.str()
		if err != nil {
			return err
		}
		v.SetString(internedContent(content, escaped))
		return nil
	case 'n':
		return s.literal("null")
	}
	return errSlowPath
}

func decodeBool(s *scanner, v reflect.Value) error {
	switch s.peek() {
	case 't':
		if err := s.literal("true"); err != nil {
			return err
		}
		v.SetBool(true)
		return nil
	case 'f':
		if err := s.literal("false"); err != nil {
			return err
		}
		v.SetBool(false)
		return nil
	case 'n':
		return s.literal("null")
	}
	return errSlowPath
}

// numberLiteral reads a number's bytes; null reports isNull.
func numberLiteral(s *scanner) (lit []byte, isNull bool, err error) {
	c := s.peek()
	if c == 'n' {
		return nil, true, s.literal("null")
	}
	if c != '-' && !isDigit(c) {
		return nil, false, errSlowPath
	}
	start := s.pos
	if err := s.number(); err != nil {
		return nil, false, err
	}
	return s.data[start:s.pos], false, nil
}

func decodeInt(s *scanner, v reflect.Value) error {
	lit, isNull, err := numberLiteral(s)
	if err != nil || isNull {
		return err
	}
	n, ok := parseInt(lit)
	if !ok || v.OverflowInt(n) {
		return errSlowPath
	}
	v.SetInt(n)
	return nil
}

// parseInt parses a JSON integer, without allocating when it has at most
// 18 digits; ok is false for fractions, exponents and values outside
// int64, as strconv.ParseInt decides.
func parseInt(lit []byte) (int64, bool) {
	digits := lit
	neg := len(digits) > 0 && digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		n, err := strconv.ParseInt(string(lit), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, c := range digits {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func decodeUint(s *scanner, v reflect.Value) error {
	lit, isNull, err := numberLiteral(s)
	if err != nil || isNull {
		return err
	}
	n, err := strconv.ParseUint(string(lit), 10, 64)
	if err != nil || v.OverflowUint(n) {
		return errSlowPath
	}
	v.SetUint(n)
	return nil
}

func decodeFloat(s *scanner, v reflect.Value) error {
	lit, isNull, err := numberLiteral(s)
	if err != nil || isNull {
		return err
	}
	f, err := strconv.ParseFloat(string(lit), v.Type().Bits())
	if err != nil || v.OverflowFloat(f) {
		return errSlowPath
	}
	v.SetFloat(f)
	return nil
}

// decodeTime decodes a Time through its own UnmarshalJSON, as
// encoding/json does (null included).
func decodeTime(s *scanner, v reflect.Value) error {
	span, err := s.valueSpan()
	if err != nil {
		return err
	}
	if err := v.Addr().Interface().(*Time).UnmarshalJSON(span); err != nil {
		return errSlowPath
	}
	return nil
}

// decodeRawMessage copies the value's exact bytes, null included.
func decodeRawMessage(s *scanner, v reflect.Value) error {
	span, err := s.valueSpan()
	if err != nil {
		return err
	}
	raw := make([]byte, len(span))
	copy(raw, span)
	v.SetBytes(raw)
	return nil
}

// decodeFieldsV1 decodes a FieldsV1 as its UnmarshalJSON does, without
// checking the value twice.
func decodeFieldsV1(s *scanner, v reflect.Value) error {
	f, err := s.fieldsV1()
	if err != nil {
		return err
	}
	if !f.IsZero() {
		v.Set(reflect.ValueOf(f)) // null leaves the value, as encoding/json does
	}
	return nil
}

// decodeUnmarshaler hands the value's bytes to the type's UnmarshalJSON,
// null included.
func decodeUnmarshaler(s *scanner, v reflect.Value) error {
	span, err := s.valueSpan()
	if err != nil {
		return err
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(span); err != nil {
		return errSlowPath
	}
	return nil
}

// decodeWithEncodingJSON hands one value to encoding/json: the result is
// what encoding/json gives for the same value inside the whole object.
func decodeWithEncodingJSON(s *scanner, v reflect.Value) error {
	span, err := s.valueSpan()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(span, v.Addr().Interface()); err != nil {
		return errSlowPath
	}
	return nil
}

// stringOrNull reads a JSON string (interned when intern is set) or null,
// which encoding/json decodes as the zero value ""; anything else is
// errSlowPath.
func (s *scanner) stringOrNull(intern bool) (string, error) {
	switch s.peek() {
	case '"':
		content, escaped, err := s.str()
		if err != nil {
			return "", err
		}
		if intern {
			return internedContent(content, escaped), nil
		}
		return unquote(content), nil
	case 'n':
		return "", s.literal("null")
	default:
		return "", errSlowPath
	}
}
