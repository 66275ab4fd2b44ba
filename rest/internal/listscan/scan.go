package listscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kubecache/kubecache/internal/wordscan"
	"github.com/kubecache/kubecache/meta"
)

// ErrNotAList is wrapped by the errors Scan returns when the JSON is
// well formed but is not a list envelope (not an object, items not an
// array of objects, a key repeated, data after the list).
var ErrNotAList = errors.New("not a list")

// ErrItemTooLarge is wrapped by the error Scan returns when one item (or
// one skipped value) exceeds MaxItemSize.
var ErrItemTooLarge = errors.New("list item too large")

// MaxItemSize bounds one item: 128 MiB, far above what etcd stores (1.5 MiB
// by default), so only a broken or hostile server reaches it.
const MaxItemSize = 128 << 20

// SyntaxError reports bytes that are not a JSON list envelope. Offset counts
// bytes from the start of the body.
type SyntaxError struct {
	Offset int64
	Msg    string
}

// Error returns "syntax error at byte <offset>: <msg>".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error at byte %d: %s", e.Offset, e.Msg)
}

// Scan reads one list object from r and calls each with every element of
// its items array, in order. The slice handed to each aliases Scan's buffer
// and is only valid during the call. If each returns an error, Scan stops
// and returns it unchanged.
//
// Scan returns the list's TypeMeta and ListMeta; metadata may come before or
// after items (when it comes after, it is known only once Scan returns).
// Malformed input gives a *SyntaxError, a body that ends early an error
// wrapping io.ErrUnexpectedEOF, a reader failure an error wrapping the
// reader's error, and anything after the list object other than whitespace
// an error wrapping ErrNotAList.
func Scan(r io.Reader, each func(item []byte) error) (meta.TypeMeta, meta.ListMeta, error) {
	return ScanTyped(r, func(_ meta.TypeMeta, item []byte) error { return each(item) })
}

// ScanTyped is Scan, but each also receives the list's TypeMeta as read so
// far: a real server writes kind and apiVersion before items, so built-in
// items, which carry no TypeMeta of their own, can take it from the list.
func ScanTyped(r io.Reader, each func(list meta.TypeMeta, item []byte) error) (meta.TypeMeta, meta.ListMeta, error) {
	s := scanner{r: r, each: each, keep: -1}
	err := s.list()
	return s.tm, s.lm, err
}

// minRead is the least free space offered to one Read.
const minRead = 32 << 10

// maxNesting bounds bracket depth, as encoding/json does.
const maxNesting = 10000

type scanner struct {
	r    io.Reader
	each func(meta.TypeMeta, []byte) error

	// buf[:end] holds bytes read; pos is the next byte to scan. Bytes from
	// keep (when >= 0) on belong to the value being scanned and survive a
	// refill; bytes before min(keep, pos) may be dropped.
	buf       []byte
	pos, end  int
	keep      int
	base      int64 // stream offset of buf[0]
	readErr   error // sticky error from r (io.EOF included)
	stack     []byte
	tm        meta.TypeMeta
	lm        meta.ListMeta
	itemCount int
}

// offset is the stream offset of buf[i].
func (s *scanner) offset(i int) int64 { return s.base + int64(i) }

func (s *scanner) syntaxError(i int, format string, args ...any) error {
	return &SyntaxError{Offset: s.offset(i), Msg: fmt.Sprintf(format, args...)}
}

// fill reads more bytes into buf. It returns an error when there are none
// to be had: io.ErrUnexpectedEOF at the end of the body (the callers only
// fill when more is due), or the reader's error.
func (s *scanner) fill() error {
	for {
		if s.readErr != nil {
			if s.readErr == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return fmt.Errorf("read list: %w", s.readErr)
		}
		if len(s.buf)-s.end < minRead {
			drop := s.pos
			if s.keep >= 0 {
				drop = s.keep
			}
			if s.end-drop > MaxItemSize {
				return fmt.Errorf("%w: more than %d bytes at byte %d", ErrItemTooLarge, MaxItemSize, s.offset(drop))
			}
			if drop > 0 && len(s.buf)-(s.end-drop) >= minRead {
				copy(s.buf, s.buf[drop:s.end])
			} else {
				nb := make([]byte, max(2*len(s.buf), s.end-drop+minRead))
				copy(nb, s.buf[drop:s.end])
				s.buf = nb
			}
			s.end -= drop
			s.pos -= drop
			if s.keep >= 0 {
				s.keep -= drop
			}
			s.base += int64(drop)
		}
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.readErr = err
		}
		if n > 0 {
			return nil
		}
	}
}

// peek skips whitespace and returns the next byte without consuming it.
func (s *scanner) peek() (byte, error) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, nil
			}
		}
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
}

// expect skips whitespace and consumes the byte want.
func (s *scanner) expect(want byte, where string) error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c != want {
		return s.syntaxError(s.pos, "%s: got %s, want %q", where, quoteByte(c), want)
	}
	s.pos++
	return nil
}

func (s *scanner) list() error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c != '{' {
		return fmt.Errorf("%w: the list is %s, not an object", ErrNotAList, describeStart(c))
	}
	s.pos++
	if c, err = s.peek(); err != nil {
		return err
	}
	if c == '}' {
		s.pos++
		return s.trailer()
	}
	seen := 0 // bit set of the known keys already read
	for {
		key, err := s.key()
		if err != nil {
			return err
		}
		if err := s.expect(':', "after key "+fmt.Sprintf("%q", key)); err != nil {
			return err
		}
		bit := 0
		switch key {
		case "kind":
			bit = 1
		case "apiVersion":
			bit = 2
		case "metadata":
			bit = 4
		case "items":
			bit = 8
		}
		if seen&bit != 0 {
			return fmt.Errorf("%w: key %q appears twice", ErrNotAList, key)
		}
		seen |= bit
		switch key {
		case "kind":
			err = s.decodeValue(key, &s.tm.Kind)
		case "apiVersion":
			err = s.decodeValue(key, &s.tm.APIVersion)
		case "metadata":
			err = s.decodeValue(key, &s.lm)
		case "items":
			if err = s.items(); err != nil {
				var ee eachError
				if errors.As(err, &ee) {
					return ee.err
				}
			}
		default:
			_, err = s.value()
		}
		if err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return err
		}
		s.pos++
		switch c {
		case ',':
		case '}':
			return s.trailer()
		default:
			return s.syntaxError(s.pos-1, "after a value in the list object: got %s, want ',' or '}'", quoteByte(c))
		}
	}
}

// trailer checks that only whitespace follows the list object.
func (s *scanner) trailer() error {
	c, err := s.peek()
	if errors.Is(err, io.ErrUnexpectedEOF) && s.readErr == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: data after the list object at byte %d (%s)", ErrNotAList, s.offset(s.pos), quoteByte(c))
}

// key reads an object key and returns it unquoted.
func (s *scanner) key() (string, error) {
	c, err := s.peek()
	if err != nil {
		return "", err
	}
	if c != '"' {
		return "", s.syntaxError(s.pos, "got %s, want a key", quoteByte(c))
	}
	span, err := s.value()
	if err != nil {
		return "", err
	}
	var k string
	if err := json.Unmarshal(span, &k); err != nil {
		return "", s.syntaxError(s.pos-len(span), "key: %v", err)
	}
	return k, nil
}

// decodeValue reads a value and decodes it with encoding/json into v.
func (s *scanner) decodeValue(key string, v any) error {
	span, err := s.value()
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if err := json.Unmarshal(span, v); err != nil {
		return fmt.Errorf("%s at byte %d: %w", key, s.offset(s.pos-len(span)), err)
	}
	return nil
}

// items reads the items array (or null), handing each element over.
func (s *scanner) items() error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch c {
	case 'n':
		span, err := s.value()
		if err != nil {
			return err
		}
		if string(span) != "null" {
			return s.syntaxError(s.pos-len(span), "items: invalid literal %q", truncate(span))
		}
		return nil
	case '[':
	default:
		return fmt.Errorf("%w: items is %s, not an array", ErrNotAList, describeStart(c))
	}
	s.pos++
	if c, err = s.peek(); err != nil {
		return err
	}
	if c == ']' {
		s.pos++
		return nil
	}
	for {
		if c, err = s.peek(); err != nil {
			return fmt.Errorf("items[%d]: %w", s.itemCount, err)
		}
		if c != '{' {
			return fmt.Errorf("%w: items[%d] is %s, not an object", ErrNotAList, s.itemCount, describeStart(c))
		}
		item, err := s.value()
		if err != nil {
			return fmt.Errorf("items[%d]: %w", s.itemCount, err)
		}
		if err := s.each(s.tm, item); err != nil {
			return eachError{err}
		}
		s.itemCount++
		if c, err = s.peek(); err != nil {
			return err
		}
		s.pos++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return s.syntaxError(s.pos-1, "after items[%d]: got %s, want ',' or ']'", s.itemCount-1, quoteByte(c))
		}
	}
}

// eachError carries the callback's error out of the scanner untouched.
type eachError struct{ err error }

// Error returns the callback's message.
func (e eachError) Error() string { return e.err.Error() }

// Unwrap returns the callback's error.
func (e eachError) Unwrap() error { return e.err }

// value skips whitespace, scans the value that follows and returns
// its bytes, which stay valid until the next scan. Objects, arrays and
// strings are checked structurally; a scalar must be a JSON literal or
// number.
func (s *scanner) value() ([]byte, error) {
	c, err := s.peek()
	if err != nil {
		return nil, err
	}
	s.keep = s.pos
	defer func() { s.keep = -1 }()
	switch c {
	case '{', '[':
		err = s.nested()
	case '"':
		s.pos++
		err = s.stringRest()
	default:
		err = s.scalar()
	}
	if err != nil {
		return nil, err
	}
	// keep may have moved with a compaction; start is relative to it.
	return s.buf[s.keep:s.pos], nil
}

// nested scans an object or array from its opening bracket.
func (s *scanner) nested() error {
	s.stack = append(s.stack[:0], s.buf[s.pos])
	s.pos++
	for len(s.stack) > 0 {
		if s.pos == s.end {
			if err := s.fill(); err != nil {
				return err
			}
		}
		// The fast path, over the bytes read so far with the position in
		// a local: skip bytes that matter to no one, and strings that end
		// within them.
		buf, i := s.buf[:s.end], s.pos
		for i < len(buf) {
			c := buf[i]
			if !special[c] {
				i++
				continue
			}
			if c == '"' {
				end, ok := wordscan.StringEnd(buf, i+1)
				if !ok {
					break // a string to finish after a refill
				}
				i = end
				continue
			}
			if c == '{' || c == '[' {
				if len(s.stack) >= maxNesting {
					return s.syntaxError(i, "nested too deeply")
				}
				s.stack = append(s.stack, c)
				i++
				continue
			}
			open := s.stack[len(s.stack)-1]
			if (c == '}') != (open == '{') {
				return s.syntaxError(i, "%s closes %s", quoteByte(c), quoteByte(open))
			}
			s.stack = s.stack[:len(s.stack)-1]
			i++
			if len(s.stack) == 0 {
				break
			}
		}
		s.pos = i
		if len(s.stack) > 0 && i < len(buf) {
			// A string that does not end in the bytes read so far.
			s.pos++
			if err := s.stringRest(); err != nil {
				return err
			}
		}
	}
	return nil
}

// special marks the bytes nested must look at.
var special = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// stringRest scans the rest of a string after its opening quote.
func (s *scanner) stringRest() error {
	for {
		buf := s.buf[s.pos:s.end]
		q := bytes.IndexByte(buf, '"')
		limit := q
		if q < 0 {
			limit = len(buf)
		}
		if b := bytes.IndexByte(buf[:limit], '\\'); b >= 0 {
			s.pos += b
			if s.pos+1 >= s.end {
				// The escaped byte is still to come.
				if err := s.fill(); err != nil {
					return err
				}
				continue
			}
			s.pos += 2 // the backslash and the byte it escapes
			continue
		}
		if q >= 0 {
			s.pos += q + 1
			return nil
		}
		s.pos = s.end
		if err := s.fill(); err != nil {
			return err
		}
	}
}

// scalar scans a literal or number and checks it. It starts at s.keep,
// which follows the bytes when a refill moves them.
func (s *scanner) scalar() error {
	for {
		for s.pos < s.end {
			switch s.buf[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
				return s.checkScalar(s.keep)
			}
			s.pos++
			if s.pos-s.keep > 64 {
				return s.syntaxError(s.keep, "invalid value %s", truncate(s.buf[s.keep:s.pos]))
			}
		}
		if err := s.fill(); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) && s.pos > s.keep {
				// The body ended right after a scalar: report a bad
				// scalar as such, whatever it is followed by.
				return s.checkScalar(s.keep)
			}
			return err
		}
	}
}

func (s *scanner) checkScalar(start int) error {
	span := s.buf[start:s.pos]
	if len(span) == 0 {
		return s.syntaxError(start, "got %s, want a value", quoteByte(s.buf[s.pos]))
	}
	if !json.Valid(span) {
		return s.syntaxError(start, "invalid value %s", truncate(span))
	}
	return nil
}

// describeStart names the kind of JSON value that starts with c.
func describeStart(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if c == '-' || ('0' <= c && c <= '9') {
		return "a number"
	}
	return quoteByte(c)
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func truncate(b []byte) string {
	if len(b) > 32 {
		return fmt.Sprintf("%q...", b[:32])
	}
	return fmt.Sprintf("%q", b)
}
