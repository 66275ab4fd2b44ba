package watch

import (
	"context"
	"io"
)

// FrameReader is what a watcher reads its frames from: a Decoder for a
// JSON stream, or a reader of another framing (the protobuf stream's
// length-prefixed frames). Next follows Decoder.Next's contract: the
// frame's Object is valid until the next call; io.EOF is a clean end
// between frames; every error is sticky.
type FrameReader interface {
	Next() (Frame, error)
}

// NewFrameWatcher is NewStreamWatcher for a stream whose frames frames
// reads off body: the same events, errors and ownership (body is closed
// when the watch ends; cancelling ctx or Stop closes it to unblock a
// read). An ERROR frame's Object must be the Status as JSON.
func NewFrameWatcher[T any](ctx context.Context, body io.ReadCloser, frames FrameReader, decode func([]byte) (T, error)) Interface[T] {
	return newWatcher(ctx, body, frames, decode)
}
