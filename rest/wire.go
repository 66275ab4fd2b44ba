package rest

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// Wire names the encoding of a request's response: JSON or the
// Kubernetes protobuf encoding (docs/api-semantics.md, "The protobuf wire
// format"). A real server offers protobuf for built-in kinds only; a
// custom resource is always JSON.
type Wire string

const (
	// WireAuto leaves the choice to whoever builds the request: the
	// reflector asks for protobuf for built-in kinds and JSON otherwise.
	// A Request treats it as WireJSON.
	WireAuto Wire = ""
	// WireJSON asks for application/json.
	WireJSON Wire = "json"
	// WireProtobuf asks for application/vnd.kubernetes.protobuf, with
	// application/json as the fallback the server picks for kinds it has
	// no protobuf for.
	WireProtobuf Wire = "protobuf"
)

// MediaProtobuf is the media type of the Kubernetes protobuf encoding.
const MediaProtobuf = "application/vnd.kubernetes.protobuf"

// acceptProtobuf asks for protobuf and accepts JSON.
const acceptProtobuf = MediaProtobuf + ",application/json"

// ErrUnexpectedWire is wrapped when a response comes in an encoding the
// caller cannot read (a protobuf list handed to ListItems, whose items are
// JSON).
var ErrUnexpectedWire = errors.New("unexpected wire format")

// ParseWire returns the Wire named by s: "" or "auto", "json",
// "protobuf". Any other name is an error wrapping ErrInvalidRequest.
func ParseWire(s string) (Wire, error) {
	switch s {
	case "", "auto":
		return WireAuto, nil
	case "json":
		return WireJSON, nil
	case "protobuf":
		return WireProtobuf, nil
	}
	return "", fmt.Errorf("%w: wire %q (want auto, json or protobuf)", ErrInvalidRequest, s)
}

// String returns "auto", "json" or "protobuf".
func (w Wire) String() string {
	if w == WireAuto {
		return "auto"
	}
	return string(w)
}

// Encoding is how the server encoded a response: its wire format, and
// the Content-Encoding its body was sent in ("gzip", which the client
// decodes; "" for a body sent as it is). Only a response the client asked
// to be compressed is decoded (see Config.DisableCompression).
type Encoding struct {
	Wire            Wire
	ContentEncoding string
}

// encodingOf reads how resp was encoded.
func encodingOf(resp *http.Response) Encoding {
	e := Encoding{Wire: wireOf(resp.Header.Get("Content-Type")), ContentEncoding: resp.Header.Get("Content-Encoding")}
	if resp.Uncompressed {
		e.ContentEncoding = "gzip"
	}
	return e
}

// wireOf reads the wire format from a response's Content-Type.
func wireOf(contentType string) Wire {
	mt, _, err := mime.ParseMediaType(contentType)
	if err == nil && mt == MediaProtobuf {
		return WireProtobuf
	}
	return WireJSON
}

// Wire sets the encoding ListWire and WatchDecodedWire ask for. It changes
// the default Accept header only: one set with SetHeader wins. Watches
// over a websocket are JSON whatever is asked.
func (r *Request) Wire(w Wire) *Request {
	r.wire = w
	return r
}

// accept is the default Accept header of a list or watch.
func (r *Request) accept() string {
	if r.wire == WireProtobuf && r.transport == WatchOverHTTP {
		return acceptProtobuf
	}
	return "application/json"
}

// ListWire is ListItems for a request that may be answered in either
// encoding (see Request.Wire). each receives every item with the
// response's wire format: for WireJSON the item's JSON, for WireProtobuf
// its bare protobuf message (to be decoded as the list's kind minus
// "List", see meta.DecodeProtobuf). ListWire returns how the server
// encoded the response: the wire format it chose and its Content-Encoding.
func (r *Request) ListWire(ctx context.Context, each func(list meta.TypeMeta, item []byte, wire Wire) error) (meta.TypeMeta, meta.ListMeta, Encoding, error) {
	return r.listStream(ctx, r.accept(), each)
}

// WatchDecodedWire is WatchDecoded for a request that may be answered in
// either encoding (see Request.Wire): decode receives each event's object
// with the stream's wire format, for WireJSON the object's JSON, for
// WireProtobuf its whole protobuf body (kubeproto.Magic and the envelope
// naming its kind; see meta.DecodeProtobufBody). A protobuf stream is
// length-prefixed WatchEvent frames; its in-stream ERROR Status is
// converted to JSON for the event's Status. WatchDecodedWire returns how
// the server encoded the stream: the wire format it chose and its
// Content-Encoding.
func WatchDecodedWire[T any](ctx context.Context, r *Request, decode func(raw []byte, wire Wire) (T, error)) (watch.Interface[T], Encoding, error) {
	body, enc, err := r.openWatchWire(ctx)
	if err != nil {
		return nil, Encoding{}, err
	}
	wire := enc.Wire
	opts := watch.DecoderOptions{MaxFrameSize: r.c.maxFrame}
	if wire == WireProtobuf {
		frames := newProtobufFrames(body, opts.MaxFrameSize)
		return watch.NewFrameWatcher(ctx, body, frames, func(raw []byte) (T, error) { return decode(raw, WireProtobuf) }), enc, nil
	}
	return watch.NewStreamWatcher(ctx, body, func(raw []byte) (T, error) { return decode(raw, WireJSON) }, opts), enc, nil
}
