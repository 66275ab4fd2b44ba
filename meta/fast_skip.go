package meta

import (
	"encoding/binary"
	"math/bits"

	"github.com/kubecache/kubecache/internal/wordscan"
)

// Fast path: skipping a value. Most of an object's bytes are in values no
// caller asks for (a pod's spec and status when only its metadata is
// decoded, every member but kind, apiVersion and metadata of an
// Unstructured), so checking and stepping over them is the scanner's
// busiest work. skipComposite does it in one loop, without the callbacks
// and recursion of object and array: the kind of every open container is
// one bit of a stack, the loop's state is whether a value or a separator
// comes next, and the errors are those object and array give, at the same
// offsets.

// containerStack records, one bit per open container, whether it is an
// object (1) or an array (0). The first 64 levels live in a word; deeper
// ones, which only unusual or hostile input reaches, in more words
// allocated as they are needed (maxDepth bounds them).
type containerStack struct {
	low  uint64
	high []uint64
	n    int
}

func (c *containerStack) push(object bool) {
	var bit uint64
	if object {
		bit = 1
	}
	if c.n < 64 {
		c.low = c.low&^(1<<c.n) | bit<<c.n
	} else {
		i, shift := (c.n-64)/64, (c.n-64)%64
		if i == len(c.high) {
			c.high = append(c.high, 0)
		}
		c.high[i] = c.high[i]&^(1<<shift) | bit<<shift
	}
	c.n++
}

// top reports whether the innermost open container is an object.
func (c *containerStack) top() bool {
	i := c.n - 1
	if i < 64 {
		return c.low>>i&1 == 1
	}
	return c.high[(i-64)/64]>>((i-64)%64)&1 == 1
}

// skipComposite checks and skips the object or array starting at s.pos.
// The position lives in a local while the loop runs (the common tokens,
// strings without escapes and compact separators, are read here); s.pos
// is brought up to date before each call on the scanner's own methods,
// which read and move it, and before returning.
func (s *scanner) skipComposite() error {
	var open containerStack
	d, pos, spaced := s.data, s.pos, false
	for {
		// A value starts here (open.n == 0 only for the first one).
		pos, spaced = skipSpaceAt(d, pos, spaced)
		switch c := byteAt(d, pos); {
		case c == '"':
			var err error
			if pos, err = s.stringEndAt(pos); err != nil {
				return err
			}
		case c == '{' || c == '[':
			s.pos = pos
			if s.depth++; s.depth > maxDepth {
				return s.syntaxError("nesting deeper than %d", maxDepth)
			}
			object := c == '{'
			closer := byte(']')
			if object {
				closer = '}'
			}
			pos, spaced = skipSpaceAt(d, pos+1, spaced)
			if pos < len(d) && d[pos] == closer {
				pos++
				s.depth--
				break // to the separator after this value
			}
			open.push(object)
			if object {
				var err error
				if pos, spaced, err = s.memberKeyAt(pos, spaced); err != nil {
					return err
				}
			}
			continue // to the first value inside
		default:
			s.pos = pos
			var err error
			switch {
			case c == 't':
				err = s.literal("true")
			case c == 'f':
				err = s.literal("false")
			case c == 'n':
				err = s.literal("null")
			case c == '-' || isDigit(c):
				err = s.number()
			default:
				err = s.syntaxError("%s where a value was expected", s.describe())
			}
			if err != nil {
				return err
			}
			pos = s.pos
		}
		// A value has ended: a separator or closers come next.
		for open.n > 0 {
			pos, spaced = skipSpaceAt(d, pos, spaced)
			object, c := open.top(), byteAt(d, pos)
			if c == ',' {
				if object {
					var err error
					if pos, spaced, err = s.memberKeyAt(pos+1, spaced); err != nil {
						return err
					}
				} else {
					pos++
				}
				break
			}
			if object && c != '}' || !object && c != ']' {
				s.pos = pos
				if object {
					return s.syntaxError("%s after an object member, expected ',' or '}'", s.describe())
				}
				return s.syntaxError("%s after an array element, expected ',' or ']'", s.describe())
			}
			pos++
			s.depth--
			open.n--
		}
		if open.n == 0 {
			s.pos, s.spaced = pos, s.spaced || spaced
			return nil
		}
	}
}

// memberKeyAt checks and skips an object member's key and its colon,
// starting at pos, and returns the position after the colon.
func (s *scanner) memberKeyAt(pos int, spaced bool) (int, bool, error) {
	d := s.data
	pos, spaced = skipSpaceAt(d, pos, spaced)
	end, err := s.stringEndAt(pos)
	if err != nil {
		return 0, spaced, err
	}
	pos, spaced = skipSpaceAt(d, end, spaced)
	if pos >= len(d) || d[pos] != ':' {
		s.pos = pos
		return 0, spaced, s.syntaxError("%s after an object key, expected ':'", s.describe())
	}
	return pos + 1, spaced, nil
}

// byteAt returns d[pos], or 0 at the end of the input.
func byteAt(d []byte, pos int) byte {
	if pos < len(d) {
		return d[pos]
	}
	return 0
}

// skipSpaceAt returns the position of the first byte at or after pos
// that is not whitespace, and spaced, set if any was skipped.
func skipSpaceAt(d []byte, pos int, spaced bool) (int, bool) {
	if pos < len(d) && d[pos] > ' ' {
		return pos, spaced // the common case in compact JSON
	}
	start := pos
	for pos < len(d) && (d[pos] == ' ' || d[pos] == '\t' || d[pos] == '\n' || d[pos] == '\r') {
		pos++
	}
	return pos, spaced || pos > start
}

// stringEndAt checks the string starting at pos and returns the position
// after its closing quote: a plain one found here, any other read by str.
func (s *scanner) stringEndAt(pos int) (int, error) {
	if end, ok := plainStringEnd(s.data, pos); ok {
		return end, nil
	}
	s.pos = pos
	if _, _, err := s.str(); err != nil {
		return 0, err
	}
	return s.pos, nil
}

// plainStringEnd finds the end of the string starting at d[pos] when it
// starts there, holds no escape or control character and ends eight bytes or
// more before the input does: the position after its closing quote, and
// true. Anything else is false, for strRest to read.
func plainStringEnd(d []byte, pos int) (int, bool) {
	if pos >= len(d) || d[pos] != '"' {
		return 0, false
	}
	for pos++; pos+8 <= len(d); pos += 8 {
		if m := wordscan.QuoteBackslashOrControl(binary.LittleEndian.Uint64(d[pos:])); m != 0 {
			pos += bits.TrailingZeros64(m) / 8
			return pos + 1, d[pos] == '"'
		}
	}
	return 0, false
}
