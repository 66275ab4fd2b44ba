package jsonv

import (
	"unicode/utf8"

	"github.com/kubecache/kubecache/kubeproto"
)

// Marshal returns the compact JSON encoding of v.
func Marshal(v Value) []byte {
	return Append(nil, v)
}

// Append appends the compact JSON encoding of v to buf. Strings are escaped
// as encoding/json escapes them (including <, > and &), so documents read
// the same as the API server's own output.
func Append(buf []byte, v Value) []byte {
	switch v.Kind {
	case Null:
		return append(buf, "null"...)
	case Bool:
		if v.B {
			return append(buf, "true"...)
		}
		return append(buf, "false"...)
	case Number:
		return append(buf, v.Str...)
	case String:
		return AppendString(buf, v.Str)
	case Array:
		buf = append(buf, '[')
		for i := range v.Arr {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = Append(buf, v.Arr[i])
		}
		return append(buf, ']')
	case Object:
		buf = append(buf, '{')
		for i := range v.Obj {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendString(buf, v.Obj[i].Key)
			buf = append(buf, ':')
			buf = Append(buf, v.Obj[i].Value)
		}
		return append(buf, '}')
	}
	return append(buf, "null"...)
}

// AppendString appends s as a JSON string literal, escaped as encoding/json
// escapes it (kubeproto.AppendJSONString).
func AppendString(buf []byte, s string) []byte {
	return kubeproto.AppendJSONString(buf, s)
}

// EncodedSize returns the length of v's compact JSON encoding.
func EncodedSize(v Value) int64 {
	switch v.Kind {
	case Object:
		n := int64(2 + max(len(v.Obj)-1, 0)) // braces and commas
		for i := range v.Obj {
			n += stringSize(v.Obj[i].Key) + 1 + EncodedSize(v.Obj[i].Value)
		}
		return n
	case Array:
		n := int64(2 + max(len(v.Arr)-1, 0))
		for i := range v.Arr {
			n += EncodedSize(v.Arr[i])
		}
		return n
	case String:
		return stringSize(v.Str)
	}
	return int64(len(Append(nil, v)))
}

// stringSize returns the length of s as a JSON string literal, escaped as
// AppendString escapes it; strings that need no escape are not copied.
func stringSize(s string) int64 {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			return int64(len(AppendString(nil, s)))
		}
	}
	return int64(len(s) + 2)
}
