package watch

import (
	"errors"
	"fmt"
	"io"
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
