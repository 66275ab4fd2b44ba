package reliability

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"github.com/kubecache/kubecache/watch"
)

// FaultProxy is an HTTP reverse proxy that stands between a client and an
// API server and breaks what passes through it the ways networks and
// lagging servers do, for the faults a server cannot inject into its own
// responses: a connection reset or a frame cut in the middle of a watch
// stream, bytes that are not a frame, a frame over any size bound, a watch
// that never sends a byte, a streaming list whose end never comes, a list
// served from a stale cache, and requests held while the world moves on.
//
// Each fault is armed by a method and consumed by the request or the stream
// line it hits; Counts reports how many of each were injected. It listens on
// loopback only. All methods are safe for concurrent use.
type FaultProxy struct {
	target    *url.URL
	transport *http.Transport
	rp        *httputil.ReverseProxy

	// closing is closed by Close; silenced and held requests give up.
	closing chan struct{}
	// handlers counts requests in flight and the serving goroutine; Close
	// waits for them.
	handlers sync.WaitGroup

	// mu guards every field below.
	mu       sync.Mutex
	srv      *http.Server
	url      string
	closed   bool
	stream   []*streamFault
	silence  []bool // armed silent watches: true sends headers first
	stale    int
	dropEnd  int
	held     chan struct{} // non-nil while watch requests are held
	counts   map[string]int
	requests map[string]int
	// arrived is closed and replaced whenever a request arrives or a fault
	// is injected, so tests can wait for either.
	arrived chan struct{}
}

// The names Counts uses for the faults.
const (
	FaultReset     = "reset"
	FaultTruncate  = "truncate"
	FaultInject    = "inject"
	FaultSilence   = "silence"
	FaultStaleList = "stale list"
	FaultDropEnd   = "drop initial-events-end"
	FaultHold      = "hold"
)

// streamFault is one armed fault for the watch streams.
type streamFault struct {
	kind   string
	marker []byte
	// inject returns the bytes written after the line (FaultInject).
	inject func() io.Reader
	// end ends the stream cleanly after the injected bytes.
	end bool
}

// connKey is the context key of the client's connection.
type connKey struct{}

// errTruncated aborts a proxied response in the middle of a frame.
var errTruncated = errors.New("reliability: stream truncated by the fault proxy")

// NewFaultProxy returns a proxy for the API server at target (its base
// URL). It does not listen until Listen.
func NewFaultProxy(target string) (*FaultProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: target %q: %w", target, err)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("fault proxy: target %q: only http targets are proxied", target)
	}
	p := &FaultProxy{
		target:    u,
		transport: &http.Transport{},
		closing:   make(chan struct{}),
		counts:    map[string]int{},
		requests:  map[string]int{},
		arrived:   make(chan struct{}),
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = u.Host
			// The stream filter reads watch streams as sent: the
			// proxy's own transport asks for gzip and decodes it (a
			// streaming list is gzip-encoded for a client that asks).
			pr.Out.Header.Del("Accept-Encoding")
		},
		FlushInterval:  -1,
		Transport:      p.transport,
		ModifyResponse: p.modifyResponse,
		ErrorLog:       log.New(io.Discard, "", 0),
		ErrorHandler:   func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) },
	}
	return p, nil
}

// ReserveLoopbackAddr returns a loopback address nothing listens on (it
// listened there a moment ago): a client pointed at it is refused until a
// FaultProxy listens there.
func ReserveLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("reserve loopback address: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", fmt.Errorf("reserve loopback address: %w", err)
	}
	return addr, nil
}

// Listen starts serving on addr ("" means 127.0.0.1 on any free port). The
// address must be a loopback one.
func (p *FaultProxy) Listen(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("fault proxy: listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("fault proxy: listen address %q is not a loopback address", addr)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("fault proxy: closed")
	}
	if p.srv != nil {
		return errors.New("fault proxy: already listening")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("fault proxy: listen on %s: %w", addr, err)
	}
	p.srv = &http.Server{
		Handler:     http.HandlerFunc(p.serve),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
		ErrorLog:    log.New(io.Discard, "", 0),
	}
	p.url = "http://" + ln.Addr().String()
	srv := p.srv
	p.handlers.Add(1)
	go func() {
		defer p.handlers.Done()
		_ = srv.Serve(ln) // ends with http.ErrServerClosed at Close
	}()
	return nil
}

// URL returns the proxy's base URL, "" before Listen.
func (p *FaultProxy) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Close stops listening, drops every connection, releases held and silent
// requests and waits for every request in flight. It is idempotent.
func (p *FaultProxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.closing)
	srv := p.srv
	p.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	p.handlers.Wait()
	p.transport.CloseIdleConnections()
}

// ResetStream arms a connection reset: the next watch event line containing
// marker ("" for any event) is cut in half and the client's connection is
// reset (TCP RST).
func (p *FaultProxy) ResetStream(marker string) {
	p.arm(&streamFault{kind: FaultReset, marker: []byte(marker)})
}

// TruncateStream arms a truncated frame: the next watch event line
// containing marker is cut in half and the connection closed without
// ending the response.
func (p *FaultProxy) TruncateStream(marker string) {
	p.arm(&streamFault{kind: FaultTruncate, marker: []byte(marker)})
}

// InjectAfter arms an injection: after the next watch event line containing
// marker, the bytes data returns are written into the stream; with end the
// stream then ends cleanly, as a server does after an ERROR event. data is
// called once, when the line passes, so it may return a generator of any
// size.
func (p *FaultProxy) InjectAfter(marker string, data func() io.Reader, end bool) {
	p.arm(&streamFault{kind: FaultInject, marker: []byte(marker), inject: data, end: end})
}

func (p *FaultProxy) arm(f *streamFault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stream = append(p.stream, f)
}

// SilenceNextWatch makes the next watch request hang without ever sending a
// byte of an event: with headers, a 200 response with its headers and
// nothing after; without, not even the headers. It lasts until the client
// gives up or the proxy closes.
func (p *FaultProxy) SilenceNextWatch(headers bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.silence = append(p.silence, headers)
}

// ServeStaleLists makes the next n LIST requests read the server's cache at
// resourceVersion "0" whatever they asked for: a lagging server answering a
// consistent or not-older-than read with an older state.
func (p *FaultProxy) ServeStaleLists(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stale += n
}

// DropInitialEventsEnd removes the k8s.io/initial-events-end bookmark from
// the next n streaming lists: a server that accepts streaming lists and
// never finishes them.
func (p *FaultProxy) DropInitialEventsEnd(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropEnd += n
}

// HoldWatches makes new watch requests wait until ReleaseWatches (a client
// cut off while the server moves on).
func (p *FaultProxy) HoldWatches() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = make(chan struct{})
	}
}

// ReleaseWatches lets held watch requests through.
func (p *FaultProxy) ReleaseWatches() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held != nil {
		close(p.held)
		p.held = nil
	}
}

// Disarm removes every armed fault and releases held watches.
func (p *FaultProxy) Disarm() {
	p.ReleaseWatches()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stream, p.silence, p.stale, p.dropEnd = nil, nil, 0, 0
}

// Armed reports how many faults are armed and not yet injected.
func (p *FaultProxy) Armed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.stream) + len(p.silence) + p.stale + p.dropEnd
}

// Counts returns how many faults of each kind were injected.
func (p *FaultProxy) Counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.counts)
}

// Requests returns how many requests of each kind ("list", "watch",
// "other") the proxy received.
func (p *FaultProxy) Requests() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.requests)
}

// Changed returns a channel closed at the next request or injected fault.
func (p *FaultProxy) Changed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.arrived
}

func (p *FaultProxy) notifyLocked() {
	close(p.arrived)
	p.arrived = make(chan struct{})
}

func (p *FaultProxy) countLocked(kind string) {
	p.counts[kind]++
	p.notifyLocked()
}

// isWatch reports whether r is a watch request.
func isWatch(r *http.Request) bool {
	switch strings.ToLower(r.URL.Query().Get("watch")) {
	case "", "0", "false":
		return strings.Contains(r.URL.Path, "/watch/")
	}
	return true
}

func (p *FaultProxy) serve(w http.ResponseWriter, r *http.Request) {
	// A request is counted under the lock Close takes before it waits,
	// so that none is added while Close waits: one that arrives once the
	// proxy is closed is refused.
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		http.Error(w, "fault proxy closed", http.StatusServiceUnavailable)
		return
	}
	p.handlers.Add(1)
	p.mu.Unlock()
	defer p.handlers.Done()
	kind := "other"
	switch {
	case r.Method != http.MethodGet:
	case isWatch(r):
		kind = "watch"
	default:
		kind = "list"
	}
	p.mu.Lock()
	p.requests[kind]++
	p.notifyLocked()
	var silent, headers, stale bool
	var held chan struct{}
	switch kind {
	case "watch":
		if len(p.silence) > 0 {
			silent, headers = true, p.silence[0]
			p.silence = p.silence[1:]
			p.countLocked(FaultSilence)
		}
		if held = p.held; held != nil {
			p.countLocked(FaultHold)
		}
	case "list":
		if p.stale > 0 {
			p.stale--
			stale = true
			p.countLocked(FaultStaleList)
		}
	}
	p.mu.Unlock()

	if silent {
		if headers {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_ = http.NewResponseController(w).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-p.closing:
		}
		return
	}
	if held != nil {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		case <-p.closing:
			return
		}
	}
	if stale {
		q := r.URL.Query()
		q.Set("resourceVersion", "0")
		q.Del("resourceVersionMatch")
		q.Del("continue")
		r.URL.RawQuery = q.Encode()
	}
	p.rp.ServeHTTP(w, r)
}

func (p *FaultProxy) modifyResponse(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK || !isWatch(resp.Request) {
		return nil
	}
	conn, _ := resp.Request.Context().Value(connKey{}).(net.Conn)
	resp.Body = &streamFilter{p: p, r: bufio.NewReader(resp.Body), body: resp.Body, conn: conn}
	return nil
}

// streamFilter passes a newline-delimited watch stream through line by
// line, applying armed faults.
type streamFilter struct {
	p       *FaultProxy
	r       *bufio.Reader
	body    io.Closer
	conn    net.Conn
	pending []byte
	extra   io.Reader
	// after is what happens once pending and extra are written: an error
	// to return (errTruncated, io.EOF) or a reset.
	after error
	reset bool
}

func (f *streamFilter) Read(b []byte) (int, error) {
	for {
		if len(f.pending) > 0 {
			n := copy(b, f.pending)
			f.pending = f.pending[n:]
			return n, nil
		}
		if f.extra != nil {
			n, err := f.extra.Read(b)
			if errors.Is(err, io.EOF) {
				f.extra = nil
				err = nil
			}
			if n > 0 || err != nil {
				return n, err
			}
			continue
		}
		if f.reset {
			if tc, ok := f.conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // close with RST, not FIN
				_ = tc.Close()
			}
			return 0, errTruncated
		}
		if f.after != nil {
			return 0, f.after
		}
		line, err := f.r.ReadBytes('\n')
		if len(line) > 0 {
			f.filter(line)
		}
		if err != nil {
			if len(f.pending) > 0 || f.extra != nil || f.reset {
				if f.after == nil {
					f.after = err
				}
				continue
			}
			if f.after != nil {
				continue
			}
			return 0, err
		}
	}
}

// eventLine reports whether line is an ADDED, MODIFIED or DELETED event.
func eventLine(line []byte) bool {
	for _, t := range []string{`"type":"ADDED"`, `"type":"MODIFIED"`, `"type":"DELETED"`} {
		if bytes.Contains(line, []byte(t)) {
			return true
		}
	}
	return false
}

// filter decides what one line becomes.
func (f *streamFilter) filter(line []byte) {
	p := f.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dropEnd > 0 && bytes.Contains(line, []byte(watch.InitialEventsEndAnnotation)) {
		p.dropEnd--
		p.countLocked(FaultDropEnd)
		return
	}
	f.pending = line
	if !eventLine(line) {
		return
	}
	for i, sf := range p.stream {
		if !bytes.Contains(line, sf.marker) {
			continue
		}
		p.stream = append(p.stream[:i], p.stream[i+1:]...)
		p.countLocked(sf.kind)
		switch sf.kind {
		case FaultReset:
			f.pending = line[:len(line)/2]
			f.reset = true
		case FaultTruncate:
			f.pending = line[:len(line)/2]
			f.after = errTruncated
		case FaultInject:
			f.extra = sf.inject()
			if sf.end {
				f.after = io.EOF
			}
		}
		return
	}
}

func (f *streamFilter) Close() error { return f.body.Close() }
