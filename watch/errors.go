package watch

import (
	"errors"
	"fmt"
)

// The errors a watch can end with, and how to tell them apart.
//
// A StreamWatcher reports every problem as an Event of type DecodeFailed
// whose Err is classified with errors.Is and errors.As, never by its text:
//
//   - *ObjectError: one event's object could not be decoded (or its type is
//     unknown). The stream goes on; the owner reports it.
//   - ErrTransport: reading the body failed (connection reset, timeout). The
//     stream has ended; watch again from the last resourceVersion.
//   - io.ErrUnexpectedEOF: the body ended in the middle of a frame. The stream
//     has ended; watch again from the last resourceVersion.
//   - *SyntaxError or ErrFrameTooLarge: the server sent something that is not
//     a watch stream. The stream has ended.
//
// A clean end (the server closed the body between two events, as it does at
// timeoutSeconds) is not an error: the result channel just closes. A 410 from
// the server is not a DecodeFailed either but an Event of type Error whose
// Status says IsGone: list again.

// ErrFrameTooLarge is returned, wrapped with the frame's offset and the
// limit, when one frame exceeds DecoderOptions.MaxFrameSize.
var ErrFrameTooLarge = errors.New("watch frame too large")

// ErrTransport marks an error returned by the stream's reader (other than
// io.EOF): the connection failed, so the watch cannot go on. The reader's own
// error is wrapped as well and can be inspected with errors.Is and errors.As.
var ErrTransport = errors.New("watch stream transport error")

// ErrUnknownEventType is the cause inside an ObjectError for a frame whose
// "type" is none of ADDED, MODIFIED, DELETED, BOOKMARK and ERROR.
var ErrUnknownEventType = errors.New("unknown watch event type")

// SyntaxError reports a stream that is not a sequence of watch events: bytes
// that are not JSON, a top-level value that is not an object, or an envelope
// without "type" or "object". Offset counts bytes from the start of the
// stream to the offending byte (or to the start of the offending frame).
//
// A SyntaxError ends the stream: a Decoder returns it from every later call
// to Next.
type SyntaxError struct {
	Offset int64
	Msg    string
}

// Error returns "watch stream: syntax error at byte <offset>: <msg>".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("watch stream: syntax error at byte %d: %s", e.Offset, e.Msg)
}

// ObjectError reports one event whose object could not be turned into a
// value: the decode function failed, the ERROR object was not a Status, or
// the event type was unknown. The frame itself was well formed, so the
// stream goes on after it.
type ObjectError struct {
	// Type is the event type the frame carried.
	Type EventType
	// Offset is the stream offset of the frame's first byte.
	Offset int64
	// Err is the cause.
	Err error
}

// Error returns "decode <TYPE> event at byte <offset>: <cause>".
func (e *ObjectError) Error() string {
	return fmt.Sprintf("decode %s event at byte %d: %v", e.Type, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *ObjectError) Unwrap() error { return e.Err }
