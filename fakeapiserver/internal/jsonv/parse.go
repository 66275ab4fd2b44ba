package jsonv

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest. Deeper input is
// refused rather than risking the stack on hostile bodies.
const MaxDepth = 1000

// SyntaxError is a parse failure at a byte offset of the input.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error returns "invalid JSON at byte N: msg".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// ParseResult holds a parsed document and what the parser noticed about it.
type ParseResult struct {
	Value Value
	// Duplicates lists the dotted paths of object keys that appeared more
	// than once (the last occurrence wins in Value), for strict validation.
	Duplicates []string
}

// ParseGo parses encoding/json's encoding of v: a value the server built
// in Go (a status, a list of conditions) as a document it can edit.
func ParseGo(v any) (ParseResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return ParseResult{}, err
	}
	return Parse(b)
}

// Parse parses exactly one JSON value (surrounding whitespace allowed). Any
// error is a *SyntaxError.
func Parse(data []byte) (ParseResult, error) {
	p := parser{data: data}
	p.skipSpace()
	v, err := p.value(0, "")
	if err != nil {
		return ParseResult{}, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return ParseResult{}, p.errorf("unexpected data after the top-level value")
	}
	return ParseResult{Value: v, Duplicates: p.dups}, nil
}

type parser struct {
	data []byte
	pos  int
	dups []string
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int, path string) (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		if depth >= MaxDepth {
			return Value{}, p.errorf("nesting deeper than %d", MaxDepth)
		}
		return p.object(depth, path)
	case c == '[':
		if depth >= MaxDepth {
			return Value{}, p.errorf("nesting deeper than %d", MaxDepth)
		}
		return p.array(depth, path)
	case c == '"':
		s, err := p.string()
		return Value{Kind: String, Str: s}, err
	case c == 't':
		return Value{Kind: Bool, B: true}, p.literal("true")
	case c == 'f':
		return Value{Kind: Bool}, p.literal("false")
	case c == 'n':
		return Value{Kind: Null}, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return Value{}, p.errorf("unexpected character %q", c)
	}
}

func (p *parser) literal(word string) error {
	if !strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) {
		return p.errorf("invalid literal, want %s", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int, path string) (Value, error) {
	p.pos++ // {
	v := Value{Kind: Object, Obj: []Member{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	// index finds a key among the members once there are enough of them
	// that a scan per key would make a large object quadratic to parse.
	var index map[string]int
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.errorf("expected an object key")
		}
		key, err := p.string()
		if err != nil {
			return Value{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.errorf("expected ':' after object key")
		}
		p.pos++
		p.skipSpace()
		childPath := key
		if path != "" {
			childPath = path + "." + key
		}
		child, err := p.value(depth+1, childPath)
		if err != nil {
			return Value{}, err
		}
		if i := memberIndex(&v, index, key); i >= 0 {
			p.dups = append(p.dups, childPath)
			v.Obj[i].Value = child
		} else {
			v.Obj = append(v.Obj, Member{Key: key, Value: child})
			switch n := len(v.Obj); {
			case index != nil:
				index[key] = n - 1
			case n == indexAbove:
				index = make(map[string]int, 2*n)
				for j := range v.Obj {
					index[v.Obj[j].Key] = j
				}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input in object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return Value{}, p.errorf("expected ',' or '}' in object")
		}
	}
}

// indexAbove is the member count from which an object being parsed keeps
// a map of its keys; below it a scan is cheaper.
const indexAbove = 32

// memberIndex returns the position of key among v's members, through index
// when there is one.
func memberIndex(v *Value, index map[string]int, key string) int {
	if index == nil {
		return v.Index(key)
	}
	if i, ok := index[key]; ok {
		return i
	}
	return -1
}

func (p *parser) array(depth int, path string) (Value, error) {
	p.pos++ // [
	v := Value{Kind: Array, Arr: []Value{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.skipSpace()
		child, err := p.value(depth+1, path)
		if err != nil {
			return Value{}, err
		}
		v.Arr = append(v.Arr, child)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input in array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return Value{}, p.errorf("expected ',' or ']' in array")
		}
	}
}

// string parses a JSON string at p.pos. Strings without escapes and with
// valid UTF-8 are taken as they are; others go through encoding/json, which
// applies the same rules (invalid UTF-8 becomes U+FFFD).
func (p *parser) string() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	simple := true
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.data[start:p.pos]
			if simple && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", &SyntaxError{Offset: start, Msg: "invalid string: " + unwrapJSON(err)}
			}
			return s, nil
		case c == '\\':
			simple = false
			p.pos += 2
		case c < 0x20:
			return "", p.errorf("control character in string")
		default:
			if c >= 0x80 {
				simple = false
			}
			p.pos++
		}
	}
	return "", &SyntaxError{Offset: start, Msg: "unterminated string"}
}

func unwrapJSON(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}

// number parses a JSON number literal, keeping its text.
func (p *parser) number() (Value, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return Value{}, p.errorf("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return Value{}, p.errorf("invalid number: no digits after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return Value{}, p.errorf("invalid number: no digits in exponent")
		}
	}
	return Value{Kind: Number, Str: string(p.data[start:p.pos])}, nil
}
