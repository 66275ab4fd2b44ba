package webview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
)

// Options configure a View. The zero value serves an unprotected page
// (for a loopback address) sampled ten times a second, with no controls.
type Options struct {
	// Token, when set, is required by every request (see auth.go). Serve
	// refuses a listener that is not on a loopback address without one.
	Token string
	// Interval is the time between frames of a connection; zero means
	// 100ms.
	Interval time.Duration
	// Clock timestamps what the recorder sees; nil is the wall clock.
	Clock clock.Clock
	// Controls are the page's buttons and sliders.
	Controls Controls
	// Title heads the page; "" uses the informer's name.
	Title string
}

// View serves a live page of one informer's machinery: its reflector's
// state machine and transitions, the resourceVersion timeline, the store
// and each handler registration, streamed as Server-Sent Events.
//
// Use it in three steps: New; Trace as the reflector's trace hook
// (reflector.Options.Trace, or Options.Reflector.Trace of an informer),
// and Applied as its Applied hook; Attach once the informer exists. Then Serve, or mount Handler. It is
// safe for concurrent use.
type View struct {
	rec      *Recorder
	token    string
	interval time.Duration
	title    string
	controls *controls

	// mu guards src.
	mu  sync.Mutex
	src source
}

// New returns a View; it fails when the controls are inconsistent.
func New(opts Options) (*View, error) {
	c, err := newControls(opts.Controls)
	if err != nil {
		return nil, fmt.Errorf("web view: %w", err)
	}
	if opts.Interval <= 0 {
		opts.Interval = 100 * time.Millisecond
	}
	return &View{
		rec: NewRecorder(opts.Clock), token: opts.Token, interval: opts.Interval,
		title: opts.Title, controls: c,
	}, nil
}

// Trace is the reflector's trace hook: it records ev for the page (see
// Recorder.Trace).
func (v *View) Trace(ev reflector.TraceEvent) { v.rec.Trace(ev) }

// Applied is the reflector's hook for applied events
// (reflector.Options.Applied): set beside Trace, it spares the reflector
// an allocation per event.
func (v *View) Applied(ev reflector.EventApplied) { v.rec.Applied(ev) }

// Attach makes v show inf's store and handler registrations. Call it once
// the informer exists; until then the page shows the reflector alone.
func Attach[T meta.Object](v *View, inf *informer.Informer[T]) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.src = informerSource[T]{inf: inf}
}

// source returns the attached source, nil before Attach.
func (v *View) source() source {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.src
}

// ErrTokenRequired is returned by Serve for a listener off loopback
// without a token.
var ErrTokenRequired = errors.New("web view: a token is required on an address other than loopback")

// Serve serves the page on ln until ctx is cancelled, then closes ln and
// returns once every connection has ended. It returns ErrTokenRequired,
// without serving, when ln is not on a loopback address and Options.Token
// is empty.
func (v *View) Serve(ctx context.Context, ln net.Listener) error {
	if v.token == "" && !isLoopback(ln.Addr().String()) {
		ln.Close()
		return ErrTokenRequired
	}
	srv := &http.Server{
		Handler:           v.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("web view: %w", err)
	case <-ctx.Done():
	}
	// Streams end with ctx (their requests' base context); Shutdown
	// waits for them and for requests in flight.
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-errc
	return nil
}

// URL returns the address a browser opens for ln: with the token, if
// there is one, as a parameter the page trades for a cookie.
func (v *View) URL(ln net.Listener) string {
	addr := ln.Addr().String()
	if host, port, err := net.SplitHostPort(addr); err == nil && (host == "::" || host == "0.0.0.0" || host == "") {
		// Bound everywhere: any name of the machine reaches it.
		addr = net.JoinHostPort("localhost", port)
	}
	u := url.URL{Scheme: "http", Host: addr, Path: "/"}
	if v.token != "" {
		u.RawQuery = url.Values{"token": {v.token}}.Encode()
	}
	return u.String()
}
