package rest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/rest/internal/listscan"
	"github.com/kubecache/kubecache/watch"
)

// protobufFrames reads a protobuf watch stream: frames of a 4-byte
// big-endian length and a metav1.WatchEvent {type=1, object=2
// RawExtension{raw=1}}, whose raw is the object's whole protobuf body.
// It is the watch.FrameReader of WatchDecodedWire for protobuf streams.
// The frame buffer is reused (a Frame's Object is valid until the next
// call), grows as a frame's bytes arrive, and is bounded by max.
type protobufFrames struct {
	r      io.Reader
	max    int
	buf    []byte
	offset int64
	err    error
}

func newProtobufFrames(r io.Reader, max int) *protobufFrames {
	if max <= 0 {
		max = watch.DefaultMaxFrameSize
	}
	return &protobufFrames{r: r, max: max}
}

// eventTypes gives the server's event types without an allocation.
var eventTypes = map[string]watch.EventType{
	string(watch.Added): watch.Added, string(watch.Modified): watch.Modified, string(watch.Deleted): watch.Deleted,
	string(watch.Bookmark): watch.Bookmark, string(watch.Error): watch.Error,
}

// Next returns the next frame. Errors follow watch.Decoder's: io.EOF
// between frames, io.ErrUnexpectedEOF inside one, watch.ErrFrameTooLarge,
// watch.ErrTransport for a failing reader, a *watch.SyntaxError for a
// frame that is not a WatchEvent. Every error is sticky.
func (p *protobufFrames) Next() (watch.Frame, error) {
	if p.err != nil {
		return watch.Frame{}, p.err
	}
	f, err := p.next()
	if err != nil {
		p.err, p.buf = err, nil
	}
	return f, err
}

func (p *protobufFrames) next() (watch.Frame, error) {
	start := p.offset
	var hdr [4]byte
	if n, err := io.ReadFull(p.r, hdr[:]); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return watch.Frame{}, io.EOF
		}
		return watch.Frame{}, p.readError(err)
	}
	p.offset += 4
	n := int64(binary.BigEndian.Uint32(hdr[:]))
	if n > int64(p.max) {
		return watch.Frame{}, fmt.Errorf("%w: the frame at byte %d is %d bytes, over the limit of %d", watch.ErrFrameTooLarge, start, n, p.max)
	}
	buf, err := listscan.ReadGrowing(p.r, p.buf, uint64(n))
	p.offset += int64(len(buf))
	if err != nil {
		return watch.Frame{}, p.readError(err)
	}
	p.buf = buf
	typ, object, err := kubeproto.ParseWatchEvent(buf)
	if err != nil {
		return watch.Frame{}, &watch.SyntaxError{Offset: start, Msg: err.Error()}
	}
	et, ok := eventTypes[typ]
	if !ok {
		et = watch.EventType(typ)
	}
	if et == watch.Error {
		// The Status travels as JSON inside the watcher.
		if js, err := kubeproto.Decode(object); err == nil {
			object = js
		}
	}
	return watch.Frame{Type: et, Object: object, Offset: start}, nil
}

// readError classifies a failed read inside a frame.
func (p *protobufFrames) readError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("protobuf watch stream ended inside a frame at byte %d: %w", p.offset, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("%w: read at byte %d: %w", watch.ErrTransport, p.offset, err)
}
