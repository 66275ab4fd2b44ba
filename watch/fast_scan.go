package watch

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kubecache/kubecache/internal/wordscan"
)

// Fast path: the envelope scanner. The plain way to read a watch stream is
// a json.Decoder decoding each event into struct{Type string; Object
// json.RawMessage}: it tokenizes every byte of the object to find where it
// ends and copies the object out. This scanner does the same framing and
// envelope checks in one pass over the Decoder's buffer, skips the bytes
// inside the object with a table load each (strings eight bytes at a time,
// then with bytes.IndexByte), keeps its state across reads so no byte is
// scanned twice however the stream is chunked, and hands out the object as
// a slice of the buffer, without allocating. BenchmarkDecoderEnvelope
// against BenchmarkJSONDecoderEnvelope measures the difference, and
// BenchmarkDecoderFrameSize how it scales with the object (go test -run
// '^$' -bench Decoder -benchmem ./watch/; figures in docs/performance.md,
// "watch: the frame decoder"). FuzzDecoder checks it against
// encoding/json.

// scanState says where in the grammar of a stream of envelopes the scanner
// stands.
type scanState uint8

const (
	stBetween      scanState = iota // between frames: whitespace, then '{'
	stOpen                          // after the envelope's '{': a key or '}'
	stKey                           // inside a key
	stColon                         // after a key: ':'
	stValue                         // after ':': the start of a value
	stString                        // inside a string value of the envelope
	stScalar                        // inside a number or literal of the envelope
	stNested                        // inside an object or array value
	stNestedString                  // inside a string within a nested value
	stAfterValue                    // after a value: ',' or '}'
	stComma                         // after ',': a key
)

// keyKind is the meaning of an envelope key.
type keyKind uint8

const (
	keyOther keyKind = iota
	keyType
	keyObject
)

// byteClass marks, for the nested-value loop, the bytes that need a look:
// quotes and brackets. Everything else is skipped by a single table load.
var byteClass = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// scan advances the scanner over buf[pos:end]. It returns true when a whole
// frame has been scanned (pos is then just past its '}'). Each state's
// bytes are handled by one method below, which returns where it stopped
// and the state to go on in; all of them stop at the end of what has
// arrived, and scanning resumes there once more bytes are read.
func (d *Decoder) scan() (done bool, err error) {
	b := d.buf[:d.end]
	i := d.pos
	st := d.st
	defer func() { d.pos, d.st = i, st }()
	for i < len(b) && !done && err == nil {
		switch st {
		case stBetween:
			i, st, err = d.scanBetween(b, i)
		case stOpen, stComma, stColon, stAfterValue:
			i, st, done, err = d.scanPunctuation(b, i, st)
		case stKey, stString, stNestedString:
			i, st, err = d.scanString(b, i, st)
		case stValue:
			i, st, err = d.scanValueStart(b, i)
		case stScalar:
			i, st, err = d.scanScalar(b, i)
		case stNested:
			i, st, err = d.scanNested(b, i)
		}
	}
	return done, err
}

// scanBetween skips the whitespace between frames and enters the next
// frame's envelope at its '{'.
func (d *Decoder) scanBetween(b []byte, i int) (int, scanState, error) {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	d.start = i
	if i == len(b) {
		return i, stBetween, nil
	}
	if b[i] != '{' {
		return i, stBetween, d.syntaxError(i, "a watch event must be a JSON object, found %s", quoteByte(b[i]))
	}
	d.hasType, d.hasObj = false, false
	return i + 1, stOpen, nil
}

// scanPunctuation reads one byte of the envelope's structure: the quote
// that opens a key (after '{' or ','), the ':' after a key, or the ',' or
// '}' after a value. done reports the '}' that ends the frame.
func (d *Decoder) scanPunctuation(b []byte, i int, st scanState) (_ int, _ scanState, done bool, _ error) {
	c := b[i]
	if isSpace(c) {
		return i + 1, st, false, nil
	}
	switch st {
	case stOpen, stComma:
		switch {
		case c == '"':
			d.keyStart = i + 1 - d.start
			return i + 1, stKey, false, nil
		case c == '}' && st == stOpen:
			return i + 1, st, true, d.finish()
		}
		return i, st, false, d.syntaxError(i, "expected a key in the watch event, found %s", quoteByte(c))
	case stColon:
		if c == ':' {
			return i + 1, stValue, false, nil
		}
		return i, st, false, d.syntaxError(i, "expected ':' after a key in the watch event, found %s", quoteByte(c))
	default: // stAfterValue
		switch c {
		case ',':
			return i + 1, stComma, false, nil
		case '}':
			return i + 1, st, true, d.finish()
		}
		return i, st, false, d.syntaxError(i, "expected ',' or '}' after a value in the watch event, found %s", quoteByte(c))
	}
}

// scanString reads on to the closing quote of a key (stKey), of a string
// value of the envelope (stString) or of a string inside the object
// (stNestedString), and records what the envelope needs from it: which key
// it is, or the event's type.
func (d *Decoder) scanString(b []byte, i int, st scanState) (int, scanState, error) {
	j, ok := wordscan.StringEnd(b, i)
	if !ok {
		return j, st, nil
	}
	switch st {
	case stKey:
		d.key = classifyKey(b[d.start+d.keyStart : j-1])
		return j, stColon, nil
	case stString:
		if d.key == keyType {
			if err := d.setType(b[d.start+d.valStart:j], d.start+d.valStart); err != nil {
				return j, st, err
			}
		}
		return j, stAfterValue, nil
	default: // stNestedString
		return j, stNested, nil
	}
}

// scanValueStart reads the first byte of an envelope value, checks it
// against what the key requires ("type" a string, "object" an object) and
// enters the state that reads the rest.
func (d *Decoder) scanValueStart(b []byte, i int) (int, scanState, error) {
	c := b[i]
	if isSpace(c) {
		return i + 1, stValue, nil
	}
	d.valStart = i - d.start
	switch d.key {
	case keyType:
		if c != '"' {
			return i, stValue, d.syntaxError(i, `the watch event's "type" must be a string, found %s`, quoteByte(c))
		}
	case keyObject:
		if c != '{' {
			return i, stValue, d.syntaxError(i, `the watch event's "object" must be a JSON object, found %s`, quoteByte(c))
		}
	}
	switch {
	case c == '"':
		return i + 1, stString, nil
	case c == '{' || c == '[':
		d.stack = append(d.stack[:0], c)
		return i + 1, stNested, nil
	case isScalarByte(c):
		return i + 1, stScalar, nil
	}
	return i, stValue, d.syntaxError(i, "expected a value in the watch event, found %s", quoteByte(c))
}

// scanScalar reads a number or literal of the envelope (a key other than
// type and object) and checks it once it has ended.
func (d *Decoder) scanScalar(b []byte, i int) (int, scanState, error) {
	for i < len(b) && isScalarByte(b[i]) {
		i++
	}
	if i == len(b) {
		return i, stScalar, nil
	}
	if v := b[d.start+d.valStart : i]; !json.Valid(v) {
		return i, stScalar, d.syntaxError(d.start+d.valStart, "invalid value %q in the watch event", v)
	}
	return i, stAfterValue, nil
}

// scanNested skips over an object or array value, tracking its brackets,
// until it closes; the object's span is recorded for the frame. It is the
// hot loop: most of a stream's bytes are inside objects, and all but
// quotes and brackets are passed over by one table load each.
func (d *Decoder) scanNested(b []byte, i int) (int, scanState, error) {
	stack := d.stack
	for i < len(b) {
		c := b[i]
		i++
		if !byteClass[c] {
			continue
		}
		switch c {
		case '"':
			j, ok := wordscan.StringEnd(b, i)
			i = j
			if !ok {
				d.stack = stack
				return i, stNestedString, nil
			}
		case '{', '[':
			if len(stack) >= maxNesting {
				d.stack = stack
				return i, stNested, d.syntaxError(i-1, "watch event nested more than %d levels deep", maxNesting)
			}
			stack = append(stack, c)
		default: // '}' or ']'
			open := stack[len(stack)-1]
			if (c == '}') != (open == '{') {
				d.stack = stack
				return i, stNested, d.syntaxError(i-1, "%s closes %s", quoteByte(c), quoteByte(open))
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				if d.key == keyObject {
					d.objStart, d.objEnd, d.hasObj = d.valStart, i-d.start, true
				}
				d.stack = stack
				return i, stAfterValue, nil
			}
		}
	}
	d.stack = stack
	return i, stNested, nil
}

// finish checks that the envelope just scanned had both a type and an
// object.
func (d *Decoder) finish() error {
	switch {
	case !d.hasType:
		return d.syntaxError(d.start, `the watch event has no "type"`)
	case !d.hasObj:
		return d.syntaxError(d.start, `the watch event has no "object"`)
	}
	return nil
}

// setType records the event type from the quoted string s, which starts at
// buffer index at.
func (d *Decoder) setType(s []byte, at int) error {
	raw := s[1 : len(s)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		var t string
		if err := json.Unmarshal(s, &t); err != nil {
			return d.syntaxError(at, `the watch event's "type" is not a valid string: %v`, err)
		}
		raw = []byte(t)
	}
	// A switch on string(raw) does not allocate; only an unknown type does.
	switch string(raw) {
	case string(Added):
		d.typ = Added
	case string(Modified):
		d.typ = Modified
	case string(Deleted):
		d.typ = Deleted
	case string(Bookmark):
		d.typ = Bookmark
	case string(Error):
		d.typ = Error
	default:
		d.typ = EventType(raw)
	}
	d.hasType = true
	return nil
}

// classifyKey names an envelope key given its raw bytes (between quotes).
func classifyKey(k []byte) keyKind {
	if bytes.IndexByte(k, '\\') >= 0 {
		var s string
		q := make([]byte, 0, len(k)+2)
		q = append(append(append(q, '"'), k...), '"')
		if json.Unmarshal(q, &s) != nil {
			return keyOther
		}
		k = []byte(s)
	}
	switch string(k) {
	case "type":
		return keyType
	case "object":
		return keyObject
	}
	return keyOther
}

// isSpace reports JSON whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// isScalarByte reports bytes that may appear in a number or in true, false
// and null.
func isScalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E'
}

// quoteByte renders a byte for an error message: 'x' or 0x00.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
