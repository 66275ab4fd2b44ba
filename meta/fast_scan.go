package meta

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Fast path: the scanner. This file holds the small JSON scanner behind
// PeekMeta, Unstructured, PartialObjectMetadata and the struct decoder. It
// validates as strictly as encoding/json (same grammar, same nesting
// limit), but where the plain version (json.Unmarshal) checks the whole
// input in one pass and then decodes it in another, allocating every value,
// this scanner checks and decodes in the same pass and decodes only what
// its caller asks for: everything else is skipped without allocating. Its
// benchmarks are those of its callers: BenchmarkPeekMeta and
// BenchmarkDecodePartialObjectMetadata against
// BenchmarkJSONUnmarshalPartialObjectMetadata (go test -run '^$' -bench .
// -benchmem ./meta/; figures in docs/performance.md, "meta and selector").

// SyntaxError reports input that is not well-formed JSON. Offset is the
// byte where the problem was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error returns "invalid JSON at byte N: <msg>".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// maxDepth bounds the nesting of arrays and objects, as encoding/json does,
// so that hostile input cannot exhaust the stack.
const maxDepth = 10000

// scanner reads one JSON document from data. pos is the next byte to read.
type scanner struct {
	data  []byte
	pos   int
	depth int
	// spaced records that whitespace was skipped somewhere, that is, that
	// data is not already compact.
	spaced bool
}

func (s *scanner) syntaxError(format string, args ...any) error {
	return &SyntaxError{Offset: s.pos, Msg: fmt.Sprintf(format, args...)}
}

// describe names the byte at s.pos for an error message.
func (s *scanner) describe() string {
	if s.pos >= len(s.data) {
		return "end of input"
	}
	c := s.data[s.pos]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("character %q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (s *scanner) skipSpace() {
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return // the common case in compact JSON
	}
	start := s.pos
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			s.spaced = s.spaced || s.pos > start
			return
		}
	}
	s.spaced = s.spaced || s.pos > start
}

// peek skips whitespace and returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// end checks that only whitespace is left after the top-level value.
func (s *scanner) end() error {
	if s.peek(); s.pos < len(s.data) {
		return s.syntaxError("unexpected %s after the top-level value", s.describe())
	}
	return nil
}

// skipValue checks and skips one value.
func (s *scanner) skipValue() error {
	switch c := s.peek(); c {
	case '{', '[':
		return s.skipComposite()
	case '"':
		_, _, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return s.number()
		}
		return s.syntaxError("%s where a value was expected", s.describe())
	}
}

// valueSpan checks and skips one value and returns its bytes.
func (s *scanner) valueSpan() ([]byte, error) {
	s.skipSpace()
	start := s.pos
	if err := s.skipValue(); err != nil {
		return nil, err
	}
	return s.data[start:s.pos], nil
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.syntaxError("%s where a value was expected", s.describe())
	}
	s.pos += len(word)
	return nil
}

// null consumes a null literal if one comes next.
func (s *scanner) null() bool {
	if s.peek() == 'n' && s.literal("null") == nil {
		return true
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number checks and skips a number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	d := s.data
	if s.pos < len(d) && d[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(d) && d[s.pos] == '0':
		s.pos++
	case s.pos < len(d) && isDigit(d[s.pos]):
		for s.pos < len(d) && isDigit(d[s.pos]) {
			s.pos++
		}
	default:
		return s.syntaxError("%s in a number, expected a digit", s.describe())
	}
	if s.pos < len(d) && d[s.pos] == '.' {
		s.pos++
		if s.pos >= len(d) || !isDigit(d[s.pos]) {
			return s.syntaxError("%s after a decimal point, expected a digit", s.describe())
		}
		for s.pos < len(d) && isDigit(d[s.pos]) {
			s.pos++
		}
	}
	if s.pos < len(d) && (d[s.pos] == 'e' || d[s.pos] == 'E') {
		s.pos++
		if s.pos < len(d) && (d[s.pos] == '+' || d[s.pos] == '-') {
			s.pos++
		}
		if s.pos >= len(d) || !isDigit(d[s.pos]) {
			return s.syntaxError("%s in an exponent, expected a digit", s.describe())
		}
		for s.pos < len(d) && isDigit(d[s.pos]) {
			s.pos++
		}
	}
	return nil
}

// plainByte marks the bytes a string can hold without any care: everything
// except control characters, '"' and '\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str checks and skips a string starting at s.pos and returns its contents
// between the quotes, still escaped, and whether it holds escapes.
func (s *scanner) str() (content []byte, escaped bool, err error) {
	d, pos := s.data, s.pos
	if pos >= len(d) || d[pos] != '"' {
		return nil, false, s.syntaxError("%s, expected a string", s.describe())
	}
	if end, ok := plainStringEnd(d, pos); ok {
		s.pos = end
		return d[pos+1 : end-1], false, nil
	}
	s.pos = pos + 1
	return s.strRest(pos + 1)
}

// strRest finishes str from s.pos, inside the string whose contents begin
// at start: escapes, control characters and the input's last bytes.
func (s *scanner) strRest(start int) (content []byte, escaped bool, err error) {
	d := s.data
	for {
		for s.pos < len(d) && plainByte[d[s.pos]] {
			s.pos++
		}
		if s.pos >= len(d) {
			return nil, false, s.syntaxError("end of input inside a string")
		}
		switch c := d[s.pos]; {
		case c == '"':
			s.pos++
			return d[start : s.pos-1], escaped, nil
		case c == '\\':
			escaped = true
			s.pos++
			if s.pos >= len(d) {
				return nil, false, s.syntaxError("end of input inside a string")
			}
			switch d[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				s.pos++
				for range 4 {
					if s.pos >= len(d) || !isHex(d[s.pos]) {
						return nil, false, s.syntaxError("%s in a \\u escape, expected a hex digit", s.describe())
					}
					s.pos++
				}
			default:
				return nil, false, s.syntaxError("invalid escape %s in a string", s.describe())
			}
		default:
			return nil, false, s.syntaxError("control %s inside a string", s.describe())
		}
	}
}

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// object checks an object starting at s.pos and calls member for each of
// its members with the key (still escaped), whether the key holds escapes,
// and the offset where the member starts. member must consume the value.
func (s *scanner) object(member func(key []byte, escaped bool, start int) error) error {
	if s.peek() != '{' {
		return s.syntaxError("%s, expected an object", s.describe())
	}
	if s.depth++; s.depth > maxDepth {
		return s.syntaxError("nesting deeper than %d", maxDepth)
	}
	s.pos++
	if s.peek() == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.skipSpace()
		start := s.pos
		key, escaped, err := s.str()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return s.syntaxError("%s after an object key, expected ':'", s.describe())
		}
		s.pos++
		if err := member(key, escaped, start); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return s.syntaxError("%s after an object member, expected ',' or '}'", s.describe())
		}
	}
}

// array checks an array starting at s.pos and calls elem for each element
// with its index. elem must consume the value.
func (s *scanner) array(elem func(i int) error) error {
	if s.peek() != '[' {
		return s.syntaxError("%s, expected an array", s.describe())
	}
	if s.depth++; s.depth > maxDepth {
		return s.syntaxError("nesting deeper than %d", maxDepth)
	}
	s.pos++
	if s.peek() == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return s.syntaxError("%s after an array element, expected ',' or ']'", s.describe())
		}
	}
}

// keyIs reports whether a raw object key decodes to name.
func keyIs(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	return unquote(key) == name
}

// unquote decodes the contents of a checked JSON string exactly as
// encoding/json does: escapes are resolved, an unpaired surrogate and each
// byte of invalid UTF-8 become U+FFFD.
func unquote(content []byte) string {
	if bytes.IndexByte(content, '\\') < 0 && utf8.Valid(content) {
		return string(content)
	}
	b := make([]byte, 0, len(content))
	i := 0
	for i < len(content) {
		c := content[i]
		switch {
		case c == '\\':
			i++
			switch e := content[i]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(content[i+1:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 < len(content) && content[i+1] == '\\' && content[i+2] == 'u' {
						r2 = hex4(content[i+3:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default: // '"', '\\', '/'
				b = append(b, e)
			}
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(content[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, content[i:i+size]...)
			}
			i += size
		}
	}
	return string(b)
}

// hex4 decodes four checked hex digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case isDigit(c):
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendCompact appends src, a checked JSON value, with the whitespace
// between tokens removed.
func appendCompact(dst, src []byte) []byte {
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			dst = append(dst, c)
			switch c {
			case '\\':
				i++
				dst = append(dst, src[i])
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		dst = append(dst, c)
	}
	return dst
}
