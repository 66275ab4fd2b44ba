package watch

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// DefaultMaxFrameSize is the frame size limit used when
// DecoderOptions.MaxFrameSize is zero: 128 MiB, well above the largest
// object etcd stores by default (1.5 MiB) and the API server's own limits.
const DefaultMaxFrameSize = 128 << 20

// maxNesting bounds how deeply arrays and objects may nest inside one event,
// the same limit encoding/json applies. It keeps a hostile stream from
// growing the bracket stack.
const maxNesting = 10000

// initialBufferSize is the size of a Decoder's first buffer; it doubles as
// frames need (up to MaxFrameSize).
const initialBufferSize = 32 << 10

// A buffer larger than shrinkAbove and more than four times the largest of
// the last shrinkAfter or more frames is replaced by a smaller one, so one
// huge object does not pin its memory for the life of the watch.
const (
	shrinkAfter = 64
	shrinkAbove = 1 << 20
)

// minRead is the least free space the Decoder offers to one Read; below it
// the buffer is compacted or grown first, so reads stay large.
const minRead = 4 << 10

// DecoderOptions configures a Decoder. The zero value is ready to use.
type DecoderOptions struct {
	// MaxFrameSize bounds the size in bytes of one frame (one watch event,
	// from its '{' to its '}'). A larger frame ends the stream with
	// ErrFrameTooLarge. Zero or negative means DefaultMaxFrameSize.
	MaxFrameSize int
}

// Frame is one watch event as it arrived: its type and its object, still
// raw JSON.
type Frame struct {
	// Type is the envelope's "type". The five server types are returned as
	// the package constants; any other string is passed through as is.
	Type EventType
	// Object is the envelope's "object": the exact bytes of a JSON object,
	// not re-encoded. It aliases the Decoder's buffer and is valid only until
	// the next call to Next.
	Object []byte
	// Offset is the position of the frame's first byte in the stream.
	Offset int64
}

// Decoder splits a JSON watch stream into frames and reads each frame's
// envelope, {"type": ..., "object": ...}.
//
// Frames are found by scanning bytes, aware of strings and escapes, so it
// makes no difference how the stream was chunked, whether frames end with a
// newline, or whether several frames share one line. Whitespace between
// frames is skipped. The envelope is read in the same pass: its keys may come
// in any order, unknown keys are ignored, "type" must be a string and
// "object" a JSON object.
//
// The Decoder checks the envelope strictly and the object only structurally
// (strings, escapes and matching brackets); the object's own syntax is left
// to whoever decodes it.
//
// Next returns io.EOF when the stream ends cleanly between frames, an error
// wrapping io.ErrUnexpectedEOF when it ends inside a frame, a *SyntaxError
// for malformed input, an error wrapping ErrFrameTooLarge for an oversize
// frame, and an error wrapping ErrTransport (and the reader's error) when
// the reader fails. Every error is sticky: later calls return it again.
//
// A Decoder is not safe for concurrent use. Once its buffer has grown to fit
// the frames it sees, it allocates nothing per frame (except for the rare
// unknown event type or escaped envelope key). After a burst of large frames
// it gives the extra buffer memory back.
type Decoder struct {
	r   io.Reader
	max int

	// buf[start:end] holds bytes read and still needed: the current frame
	// from its '{', or nothing between frames. pos is the next byte to scan.
	buf        []byte
	start, pos int
	end        int
	// base is the stream offset of buf[0].
	base int64
	// err is the sticky error; once set, Next returns it. readErr is an
	// error the reader returned together with data, kept until that data
	// has been scanned.
	err     error
	readErr error
	// Frames are counted in windows of shrinkAfter: largest is the largest
	// frame of the current window, lastLargest that of the last complete
	// one (-1 before the first). They decide when the buffer shrinks.
	largest, lastLargest, frames int

	// The scanner's state, kept across reads so no byte is scanned twice.
	// Positions below are relative to start, so compacting the buffer does
	// not disturb them.
	st       scanState
	stack    []byte  // open brackets of the current nested value
	key      keyKind // which envelope key the current value belongs to
	keyStart int     // first byte of the current key, after its quote
	valStart int     // first byte of the current value
	typ      EventType
	hasType  bool
	objStart int
	objEnd   int
	hasObj   bool
}

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

// NewDecoder returns a Decoder reading the watch stream r.
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	max := opts.MaxFrameSize
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	return &Decoder{r: r, max: max, lastLargest: -1}
}

// Next returns the next frame of the stream. The frame's Object is valid
// only until the next call to Next.
func (d *Decoder) Next() (Frame, error) {
	if d.err != nil {
		return Frame{}, d.err
	}
	for {
		done, err := d.scan()
		if err != nil {
			return Frame{}, d.fail(err)
		}
		if done {
			return d.frame(), nil
		}
		if d.st != stBetween && d.end-d.start >= d.max {
			return Frame{}, d.fail(fmt.Errorf("%w: the frame at byte %d is over %d bytes, the limit",
				ErrFrameTooLarge, d.base+int64(d.start), d.max))
		}
		if err := d.fill(); err != nil {
			return Frame{}, d.fail(err)
		}
	}
}

// fail records the error that ends the stream and drops the buffer: no
// frame will be read from it again, and a buffer grown to the frame bound
// by an oversized frame is given back at once rather than when the caller
// lets go of the Decoder.
func (d *Decoder) fail(err error) error {
	d.err = err
	d.buf = nil
	d.stack = nil
	return err
}

// frame returns the frame just scanned and resets the scanner for the next.
func (d *Decoder) frame() Frame {
	f := Frame{
		Type:   d.typ,
		Object: d.buf[d.start+d.objStart : d.start+d.objEnd : d.start+d.objEnd],
		Offset: d.base + int64(d.start),
	}
	d.largest = max(d.largest, d.pos-d.start)
	if d.frames++; d.frames == shrinkAfter {
		d.lastLargest, d.largest, d.frames = d.largest, 0, 0
	}
	d.start = d.pos
	d.st = stBetween
	return f
}

// fill reads more of the stream into the buffer, making room first.
func (d *Decoder) fill() error {
	if d.readErr != nil {
		return d.endOfInput(d.readErr)
	}
	if d.start == d.end {
		// Nothing to keep: start over at the front of the buffer, and
		// give back memory a burst of large frames left behind.
		d.base += int64(d.end)
		d.start, d.pos, d.end = 0, 0, 0
		if recent := max(d.largest, d.lastLargest); d.lastLargest >= 0 &&
			len(d.buf) > shrinkAbove && len(d.buf) > 4*recent {
			d.buf = make([]byte, max(initialBufferSize, 2*recent))
		}
	}
	if len(d.buf)-d.end < minRead {
		if d.start > 0 {
			n := copy(d.buf, d.buf[d.start:d.end])
			d.base += int64(d.start)
			d.pos -= d.start
			d.start, d.end = 0, n
		}
		if len(d.buf)-d.end < minRead && len(d.buf) < d.max {
			size := min(max(2*len(d.buf), initialBufferSize), d.max)
			nb := make([]byte, size)
			copy(nb, d.buf[:d.end])
			d.buf = nb
		}
	}
	for range 100 {
		n, err := d.r.Read(d.buf[d.end:])
		if n < 0 || n > len(d.buf)-d.end {
			return fmt.Errorf("%w: the reader returned an invalid count %d for %d bytes", ErrTransport, n, len(d.buf)-d.end)
		}
		d.end += n
		if err != nil {
			if n > 0 {
				// Scan the bytes that came with the error first.
				d.readErr = err
				return nil
			}
			return d.endOfInput(err)
		}
		if n > 0 {
			return nil
		}
	}
	return d.endOfInput(io.ErrNoProgress)
}

// endOfInput turns the error that ended the reader into the Decoder's
// error: io.EOF between frames, io.ErrUnexpectedEOF inside one, ErrTransport
// for anything else.
func (d *Decoder) endOfInput(err error) error {
	if !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: read at byte %d: %w", ErrTransport, d.base+int64(d.end), err)
	}
	if d.st == stBetween {
		return io.EOF
	}
	return fmt.Errorf("watch stream ended inside the frame at byte %d, after %d bytes: %w",
		d.base+int64(d.start), d.end-d.start, io.ErrUnexpectedEOF)
}

// syntaxError returns a SyntaxError at buffer index i.
func (d *Decoder) syntaxError(i int, format string, args ...any) error {
	return &SyntaxError{Offset: d.base + int64(i), Msg: fmt.Sprintf(format, args...)}
}

// scan advances the scanner over buf[pos:end]. It returns true when a whole
// frame has been scanned (pos is then just past its '}').
func (d *Decoder) scan() (bool, error) {
	b := d.buf[:d.end]
	i := d.pos
	st := d.st
	defer func() { d.pos, d.st = i, st }()
	for i < len(b) {
		switch st {
		case stBetween:
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			d.start = i
			if i == len(b) {
				return false, nil
			}
			if b[i] != '{' {
				return false, d.syntaxError(i, "a watch event must be a JSON object, found %s", quoteByte(b[i]))
			}
			i++
			st = stOpen
			d.hasType, d.hasObj = false, false

		case stOpen, stComma:
			c := b[i]
			switch {
			case isSpace(c):
				i++
			case c == '"':
				i++
				d.keyStart = i - d.start
				st = stKey
			case c == '}' && st == stOpen:
				i++
				return true, d.finish()
			default:
				return false, d.syntaxError(i, "expected a key in the watch event, found %s", quoteByte(c))
			}

		case stKey:
			j, ok := endOfString(b, i)
			i = j
			if !ok {
				break
			}
			d.key = classifyKey(b[d.start+d.keyStart : j-1])
			st = stColon

		case stColon:
			c := b[i]
			switch {
			case isSpace(c):
				i++
			case c == ':':
				i++
				st = stValue
			default:
				return false, d.syntaxError(i, "expected ':' after a key in the watch event, found %s", quoteByte(c))
			}

		case stValue:
			c := b[i]
			if isSpace(c) {
				i++
				break
			}
			d.valStart = i - d.start
			switch d.key {
			case keyType:
				if c != '"' {
					return false, d.syntaxError(i, `the watch event's "type" must be a string, found %s`, quoteByte(c))
				}
			case keyObject:
				if c != '{' {
					return false, d.syntaxError(i, `the watch event's "object" must be a JSON object, found %s`, quoteByte(c))
				}
			}
			switch {
			case c == '"':
				st = stString
			case c == '{' || c == '[':
				d.stack = append(d.stack[:0], c)
				st = stNested
			case isScalarByte(c):
				st = stScalar
			default:
				return false, d.syntaxError(i, "expected a value in the watch event, found %s", quoteByte(c))
			}
			i++

		case stString:
			j, ok := endOfString(b, i)
			i = j
			if !ok {
				break
			}
			if d.key == keyType {
				if err := d.setType(b[d.start+d.valStart:j], d.start+d.valStart); err != nil {
					return false, err
				}
			}
			st = stAfterValue

		case stScalar:
			for i < len(b) && isScalarByte(b[i]) {
				i++
			}
			if i == len(b) {
				break
			}
			if v := b[d.start+d.valStart : i]; !json.Valid(v) {
				return false, d.syntaxError(d.start+d.valStart, "invalid value %q in the watch event", v)
			}
			st = stAfterValue

		case stNested:
			// The hot loop: most of a stream's bytes are inside objects.
			stack := d.stack
		nested:
			for i < len(b) {
				c := b[i]
				i++
				if !byteClass[c] {
					continue
				}
				switch c {
				case '"':
					j, ok := endOfString(b, i)
					i = j
					if !ok {
						st = stNestedString
						break nested
					}
				case '{', '[':
					if len(stack) >= maxNesting {
						d.stack = stack
						return false, d.syntaxError(i-1, "watch event nested more than %d levels deep", maxNesting)
					}
					stack = append(stack, c)
				default: // '}' or ']'
					open := stack[len(stack)-1]
					if (c == '}') != (open == '{') {
						d.stack = stack
						return false, d.syntaxError(i-1, "%s closes %s", quoteByte(c), quoteByte(open))
					}
					stack = stack[:len(stack)-1]
					if len(stack) == 0 {
						if d.key == keyObject {
							d.objStart, d.objEnd, d.hasObj = d.valStart, i-d.start, true
						}
						st = stAfterValue
						break nested
					}
				}
			}
			d.stack = stack

		case stNestedString:
			j, ok := endOfString(b, i)
			i = j
			if ok {
				st = stNested
			}

		case stAfterValue:
			c := b[i]
			switch {
			case isSpace(c):
				i++
			case c == ',':
				i++
				st = stComma
			case c == '}':
				i++
				return true, d.finish()
			default:
				return false, d.syntaxError(i, "expected ',' or '}' after a value in the watch event, found %s", quoteByte(c))
			}
		}
	}
	return false, nil
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

// endOfString returns the index just past the closing quote of the string
// whose contents continue at b[i:], and true; or an index at or past len(b)
// and false if the closing quote has not arrived yet. Scanning resumes from
// that index once more bytes are appended (it is past len(b) when b ends
// with a backslash whose escaped byte is still to come).
//
// Most strings in Kubernetes objects are short, so the first bytes are
// checked eight at a time in a register for a quote or a backslash. A long
// string (a ConfigMap value, an annotation) is then skipped with
// bytes.IndexByte, which finds quotes many bytes at a time; whether a quote
// found is escaped is decided by counting the backslashes before it.
func endOfString(b []byte, i int) (int, bool) {
	const (
		lo        = 0x0101010101010101
		hi        = 0x8080808080808080
		quotes    = '"' * lo
		backslash = '\\' * lo
	)
	for stop := min(i+shortString, len(b)-8); i <= stop; {
		// Bit 7 of each byte of m is set where v holds a quote or a
		// backslash (bits above the first match may be spurious; the
		// lowest is exact).
		v := binary.LittleEndian.Uint64(b[i:])
		x, y := v^quotes, v^backslash
		m := ((x-lo)&^x | (y-lo)&^y) & hi
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) >> 3
		if b[i] == '"' {
			return i + 1, true
		}
		i += 2 // a backslash and the byte it escapes
	}
	if len(b)-i < 8 {
		// The short tail of what has arrived: one byte at a time.
		for i < len(b) {
			switch b[i] {
			case '"':
				return i + 1, true
			case '\\':
				i += 2
			default:
				i++
			}
		}
		return i, false
	}
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			// An odd run of trailing backslashes escapes the byte
			// still to come.
			k := len(b)
			for b[k-1] == '\\' {
				k--
			}
			return len(b) + (len(b)-k)&1, false
		}
		q := i + j
		// The quote is escaped if an odd number of backslashes precede
		// it. The run cannot reach back past the string's opening quote.
		k := q
		for b[k-1] == '\\' {
			k--
		}
		if (q-k)&1 == 0 {
			return q + 1, true
		}
		i = q + 1
	}
}

// shortString is about how many bytes of a string endOfString checks eight
// at a time before it switches to bytes.IndexByte.
const shortString = 64

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
