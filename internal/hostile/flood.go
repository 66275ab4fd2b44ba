package hostile

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// The kinds of connection a Flood opens.
const (
	// KindIdle is a keep-alive connection that made one request, read the
	// answer, and then sends nothing.
	KindIdle = "idle"
	// KindStalledHeaders sent the first line and one header of a request,
	// and nothing more.
	KindStalledHeaders = "stalled headers"
	// KindStalledBody sent a request's headers announcing a body of 1 MiB,
	// then one byte of it.
	KindStalledBody = "stalled body"
	// KindPreface sent the HTTP/2 client preface and nothing more (over
	// TLS with the h2 protocol, or in clear text as prior knowledge).
	KindPreface = "HTTP/2 preface"
)

// FloodOptions say how many connections of each kind a Flood opens.
type FloodOptions struct {
	// Addr is the server's host:port (loopback).
	Addr string
	// TLS, when set, wraps every connection in TLS (with ALPN h2 for the
	// preface connections, http/1.1 for the others).
	TLS *tls.Config
	// Path is what idle connections request first; "/healthz" if empty.
	Path string
	// The number of connections of each kind.
	Idle, StalledHeaders, StalledBodies, Prefaces int
	// Header is added to the requests (an Authorization header).
	Header http.Header
	// Redial, when set, dials a connection again when it fails while
	// being set up (the server cut a TLS handshake or a first request
	// that a loaded machine made slower than the server's timeouts),
	// until ctx ends, instead of failing the flood.
	Redial bool
}

// Flood holds many connections open to one server, each doing as little
// as it can: the load an attacker puts on a server's file descriptors and
// goroutines. Start one with StartFlood; Close ends it.
type Flood struct {
	mu    sync.Mutex
	conns []*floodConn
}

type floodConn struct {
	kind   string
	c      net.Conn
	closed bool // the server ended it
}

// StartFlood opens the connections opts asks for, within ctx. It fails
// (closing what it opened) if a connection cannot be made or its idle
// request gets no answer.
func StartFlood(ctx context.Context, opts FloodOptions) (*Flood, error) {
	f := &Flood{}
	for _, k := range []struct {
		kind string
		n    int
	}{{KindIdle, opts.Idle}, {KindStalledHeaders, opts.StalledHeaders}, {KindStalledBody, opts.StalledBodies}, {KindPreface, opts.Prefaces}} {
		for range k.n {
			c, err := openFloodConn(ctx, opts, k.kind)
			for opts.Redial && err != nil && pause(ctx, redialPause) {
				c, err = openFloodConn(ctx, opts, k.kind)
			}
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("flood: %s connection %d: %w", k.kind, len(f.conns)+1, err)
			}
			f.conns = append(f.conns, &floodConn{kind: k.kind, c: c})
		}
	}
	return f, nil
}

// redialPause is the wait before a connection is dialled again, so that
// a server that refuses every attempt is not dialled in a busy loop.
const redialPause = 10 * time.Millisecond

// pause waits d and reports whether ctx is still live.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// openFloodConn dials one connection and makes it do what its kind does.
func openFloodConn(ctx context.Context, opts FloodOptions, kind string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", opts.Addr)
	if err != nil {
		return nil, err
	}
	if opts.TLS != nil {
		cfg := opts.TLS.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(opts.Addr)
		}
		cfg.NextProtos = []string{"http/1.1"}
		if kind == KindPreface {
			cfg.NextProtos = []string{"h2"}
		}
		tc := tls.Client(c, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, err
		}
		c = tc
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	defer c.SetDeadline(time.Time{})
	var header strings.Builder
	for k, vs := range opts.Header {
		for _, v := range vs {
			fmt.Fprintf(&header, "%s: %s\r\n", k, v)
		}
	}
	path := opts.Path
	if path == "" {
		path = "/healthz"
	}
	switch kind {
	case KindIdle:
		if _, err = fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", path, opts.Addr, header.String()); err == nil {
			err = readAnswer(c)
		}
	case KindStalledHeaders:
		_, err = fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n", path, opts.Addr)
	case KindStalledBody:
		_, err = fmt.Fprintf(c, "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{",
			opts.Addr, header.String(), 1<<20)
	case KindPreface:
		_, err = io.WriteString(c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// readAnswer reads one HTTP response and its body from c. It reads byte
// by byte (no buffer) so that nothing of what follows is consumed.
func readAnswer(c net.Conn) error {
	resp, err := http.ReadResponse(bufio.NewReaderSize(oneByteReader{c}, 16), nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return err
}

// oneByteReader reads at most one byte per call.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// Open returns how many connections of each kind the server still holds
// open: each connection's pending bytes (a 408, HTTP/2 settings) are read
// and dropped, and a connection counts as closed once a read ends with
// anything but a timeout (end of file, a reset).
func (f *Flood) Open() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	open := map[string]int{}
	buf := make([]byte, 4096)
	for _, fc := range f.conns {
		for !fc.closed {
			fc.c.SetReadDeadline(time.Now().Add(time.Millisecond))
			_, err := fc.c.Read(buf)
			if err == nil {
				continue
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				fc.closed = true
			}
			break
		}
		if !fc.closed {
			open[fc.kind]++
		}
	}
	return open
}

// Len returns the number of connections the flood opened.
func (f *Flood) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.conns)
}

// Close closes every connection.
func (f *Flood) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fc := range f.conns {
		fc.c.Close()
	}
}
