package rest

import (
	"context"
	"fmt"
	"io"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// WatchTransport says how a watch's events travel from the server. The
// events and their decoding are the same either way; what differs is what
// lies between client and server: a proxy or load balancer that buffers
// chunked responses, or one that only passes websockets.
type WatchTransport int

const (
	// WatchOverHTTP streams the events in the body of one chunked HTTP
	// response, the way kubectl and client-go watch. It is the zero value.
	WatchOverHTTP WatchTransport = iota
	// WatchOverWebsocket upgrades the request to a websocket, and the
	// server sends one text message per event, as it does for web
	// consoles. The connection carries the same TLS configuration and
	// credentials.
	WatchOverWebsocket
)

// String returns "http" or "websocket", the names ParseWatchTransport
// accepts.
func (t WatchTransport) String() string {
	switch t {
	case WatchOverHTTP:
		return "http"
	case WatchOverWebsocket:
		return "websocket"
	}
	return fmt.Sprintf("WatchTransport(%d)", int(t))
}

// ParseWatchTransport returns the transport named by s: "http" (or "")
// for WatchOverHTTP, "websocket" for WatchOverWebsocket. Any other name is
// an error wrapping ErrInvalidRequest.
func ParseWatchTransport(s string) (WatchTransport, error) {
	switch s {
	case "", "http":
		return WatchOverHTTP, nil
	case "websocket":
		return WatchOverWebsocket, nil
	}
	return 0, fmt.Errorf("%w: watch transport %q (want http or websocket)", ErrInvalidRequest, s)
}

// Watch opens a watch with the request (a GET on a collection; watch=true
// is added) and decodes every event's object as a *meta.Unstructured, which
// holds any kind, custom resources included. See WatchDecoded for the rest
// of the contract.
func (r *Request) Watch(ctx context.Context) (watch.Interface[*meta.Unstructured], error) {
	return WatchDecoded(ctx, r, meta.Decode[*meta.Unstructured])
}

// WatchAs opens a watch with the request and decodes every event's object
// into a new T. See WatchDecoded for the contract.
func WatchAs[T meta.Object](ctx context.Context, r *Request) (watch.Interface[T], error) {
	return WatchDecoded(ctx, r, meta.Decode[T])
}

// WatchDecoded opens a watch with the request (a GET on a collection;
// watch=true is added) over the request's Transport, and turns every
// event's raw object into a T with decode. It is the one way kubecache
// opens a watch: Watch, WatchAs and the reflector's ListerWatcher all come
// here, the reflector with a decode that reuses objects it already holds.
//
// Events arrive in the order the server sent them, framed with the
// client's Config.MaxWatchFrameBytes; see watch.NewStreamWatcher for how
// errors are reported on the channel. The watch runs until the server ends
// it (at timeoutSeconds), ctx is cancelled or Stop is called. A non-2xx
// answer to the request itself (a 410 for a too-old resourceVersion on an
// uncached resource, a 403, a 429) is returned as a *StatusError, as Do
// does. Config.Timeout does not apply.
func WatchDecoded[T any](ctx context.Context, r *Request, decode func([]byte) (T, error)) (watch.Interface[T], error) {
	body, err := r.openWatch(ctx)
	if err != nil {
		return nil, err
	}
	return watch.NewStreamWatcher(ctx, body, decode, watch.DecoderOptions{MaxFrameSize: r.c.maxFrame}), nil
}

// MaxWatchFrameBytes returns the frame bound of the request's client
// (Config.MaxWatchFrameBytes; 0 means watch.DefaultMaxFrameSize). Code that
// decodes the body of Stream as a watch passes it to
// watch.DecoderOptions.MaxFrameSize, as WatchDecoded does.
func (r *Request) MaxWatchFrameBytes() int { return r.c.maxFrame }

// Transport sets how Watch, WatchAs and WatchDecoded receive events; the
// default is WatchOverHTTP. It has no effect on other requests.
func (r *Request) Transport(t WatchTransport) *Request {
	r.transport = t
	return r
}

// openWatch sends the watch request and returns the event stream.
func (r *Request) openWatch(ctx context.Context) (io.ReadCloser, error) {
	body, enc, err := r.openWatchWire(ctx)
	if err == nil && enc.Wire != WireJSON {
		_ = body.Close()
		return nil, fmt.Errorf("%s: %w: the server answered a JSON watch in %s (use WatchDecodedWire)", r.describe("watch"), ErrUnexpectedWire, enc.Wire)
	}
	return body, err
}

// openWatchWire sends the watch request and returns the event stream and
// how it is encoded.
func (r *Request) openWatchWire(ctx context.Context) (io.ReadCloser, Encoding, error) {
	what := r.describe("watch")
	if r.params.Get("watch") == "" {
		r.params.Set("watch", "true")
	}
	var (
		body io.ReadCloser
		enc  = Encoding{Wire: WireJSON}
		err  error
	)
	switch r.transport {
	case WatchOverHTTP:
		body, enc, err = r.openChunked(ctx)
	case WatchOverWebsocket:
		body, err = r.dialWebsocket(ctx)
	default:
		err = fmt.Errorf("%w: unknown watch transport %d", ErrInvalidRequest, int(r.transport))
	}
	if err != nil {
		return nil, Encoding{}, fmt.Errorf("%s: %w", what, err)
	}
	return body, enc, nil
}

// openChunked sends the watch as a plain GET whose body streams events.
func (r *Request) openChunked(ctx context.Context) (io.ReadCloser, Encoding, error) {
	resp, err := r.send(ctx, r.accept())
	if err != nil {
		return nil, Encoding{}, err
	}
	if !isSuccess(resp.StatusCode) {
		return nil, Encoding{}, responseError(resp)
	}
	return resp.Body, encodingOf(resp), nil
}

// Stream sends the request and returns the response body unread; the
// caller must close it. A non-2xx answer is a *StatusError, as with Do.
// Config.Timeout does not apply.
func (r *Request) Stream(ctx context.Context) (io.ReadCloser, error) {
	resp, err := r.send(ctx, "application/json, */*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.describe(""), err)
	}
	if !isSuccess(resp.StatusCode) {
		return nil, fmt.Errorf("%s: %w", r.describe(""), responseError(resp))
	}
	return resp.Body, nil
}
