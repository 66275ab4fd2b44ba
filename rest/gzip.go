package rest

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
)

// The client asks for gzip and decodes it itself, instead of leaving both
// to net/http. A streaming list from a server with WatchListCompression
// (kube-apiserver since 1.37) is a series of gzip members, one per flush,
// and each may be followed by a long silence. Go's gzip reader, as net/http
// uses it, reads a member's trailer and then waits for the next member's
// header before it hands over the member's last bytes whenever they come
// out of the decompressor together with the member's end; the last events
// before a silence would then wait for the next write. gzipBody hands over
// a member's bytes as soon as they are decompressed, and only then waits
// for the next header.

// gzipRoundTripper asks for a gzip-encoded answer when the caller did not
// choose an encoding, and decodes one. It is what http.Transport does
// transparently (the same conditions: no Accept-Encoding or Range set, not
// a HEAD), with gzipBody in place of the standard reader; the transport
// below it has its own compression turned off.
type gzipRoundTripper struct {
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (rt *gzipRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Accept-Encoding") != "" || req.Header.Get("Range") != "" || req.Method == http.MethodHead {
		return rt.next.RoundTrip(req)
	}
	asked := *req
	asked.Header = req.Header.Clone()
	asked.Header.Set("Accept-Encoding", "gzip")
	resp, err := rt.next.RoundTrip(&asked)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		return resp, nil
	}
	resp.Body = &gzipBody{body: resp.Body, br: bufio.NewReader(resp.Body)}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
	return resp, nil
}

// gzipBody decodes a gzip-encoded body of one or more members. Read
// returns a member's data as soon as the decompressor yields it, and reads
// the next member's header only when asked for more. A body that ends
// between two members ends cleanly (io.EOF); one that ends inside a member
// or holds something that is not gzip fails with the decoder's error. It
// is not safe for concurrent use (a body never is), except Close.
type gzipBody struct {
	body io.ReadCloser
	br   *bufio.Reader
	// zr decodes the current member; open says it is inside one (its
	// header read, its end not yet).
	zr   *gzip.Reader
	open bool
	err  error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for g.err == nil {
		if !g.open {
			g.err = g.next()
			continue
		}
		n, err := g.zr.Read(p)
		if err == io.EOF {
			// The member ended, its trailer checked; the next header
			// is read at the next call, not now.
			g.open = false
			err = nil
		}
		if err != nil {
			g.err = err
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
	return 0, g.err
}

// next reads the header of the next member. At the end of the body (an
// empty body too, as net/http reads one) it returns io.EOF.
func (g *gzipBody) next() error {
	var err error
	if g.zr == nil {
		g.zr, err = gzip.NewReader(g.br)
	} else {
		err = g.zr.Reset(g.br)
	}
	if err != nil {
		return err
	}
	g.zr.Multistream(false)
	g.open = true
	return nil
}

// Close closes the underlying body.
func (g *gzipBody) Close() error { return g.body.Close() }
