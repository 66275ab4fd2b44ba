package rest

import (
	"context"
	"fmt"
	"io"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// Watch opens a watch with the request (a GET on a collection; watch=true
// is added) and decodes every event's object as a *meta.Unstructured, which
// holds any kind, custom resources included. See WatchAs for the rest of
// the contract.
func (r *Request) Watch(ctx context.Context) (watch.Interface[*meta.Unstructured], error) {
	return watchDecoded(ctx, r, meta.Decode[*meta.Unstructured])
}

// WatchAs opens a watch with the request (a GET on a collection; watch=true
// is added) and decodes every event's object into a new T. Events arrive in
// the order the server sent them; see watch.NewStreamWatcher for how errors
// are reported on the channel.
//
// The watch runs until the server ends it (at timeoutSeconds), ctx is
// cancelled or Stop is called. A non-2xx answer to the request itself (a
// 410 for a too-old resourceVersion on an uncached resource, a 403, a 429)
// is returned as a *StatusError, as Do does. Config.Timeout does not apply.
func WatchAs[T meta.Object](ctx context.Context, r *Request) (watch.Interface[T], error) {
	return watchDecoded(ctx, r, meta.Decode[T])
}

// watchDecoded opens the watch and starts a stream watcher decoding with
// decode.
func watchDecoded[T any](ctx context.Context, r *Request, decode func([]byte) (T, error)) (watch.Interface[T], error) {
	body, err := r.openWatch(ctx)
	if err != nil {
		return nil, err
	}
	return watch.NewStreamWatcher(ctx, body, decode, watch.DecoderOptions{MaxFrameSize: r.c.maxFrame}), nil
}

// MaxWatchFrameBytes returns the frame bound of the request's client
// (Config.MaxWatchFrameBytes; 0 means watch.DefaultMaxFrameSize). Code that
// decodes the body of Stream as a watch passes it to
// watch.DecoderOptions.MaxFrameSize, as Watch and WatchAs do.
func (r *Request) MaxWatchFrameBytes() int { return r.c.maxFrame }

// Websocket makes Watch and WatchAs use a websocket instead of a chunked
// HTTP response: the server then sends one text message per event. The
// connection carries the same TLS configuration and credentials.
func (r *Request) Websocket() *Request {
	r.websocket = true
	return r
}

// openWatch sends the watch request and returns the event stream.
func (r *Request) openWatch(ctx context.Context) (io.ReadCloser, error) {
	what := r.describe("watch")
	if r.params.Get("watch") == "" {
		r.params.Set("watch", "true")
	}
	var (
		body io.ReadCloser
		err  error
	)
	if r.websocket {
		body, err = r.dialWebsocket(ctx)
	} else {
		body, err = r.openChunked(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return body, nil
}

// openChunked sends the watch as a plain GET whose body streams events.
func (r *Request) openChunked(ctx context.Context) (io.ReadCloser, error) {
	resp, err := r.send(ctx, "application/json")
	if err != nil {
		return nil, err
	}
	if !isSuccess(resp.StatusCode) {
		return nil, responseError(resp)
	}
	return resp.Body, nil
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
