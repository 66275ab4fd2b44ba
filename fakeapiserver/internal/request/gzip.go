package request

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
)

// GzipThreshold is the body size from which a response is gzip-encoded
// for a client that accepts it: the real server's APIResponseCompression
// threshold (128 KiB; smaller bodies go out as they are).
const GzipThreshold = 128 << 10

// acceptsGzip reports whether the request's Accept-Encoding names gzip.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// CompressedWriter returns where a body of size bytes is written: w itself,
// or (when n.Gzip and size reaches GzipThreshold) a gzip writer over it,
// with Content-Encoding and Vary set and Content-Length dropped. Call
// before WriteHeader; close the returned closer after the body.
func CompressedWriter(w http.ResponseWriter, n Negotiation, size int) (io.Writer, io.Closer) {
	if !n.Gzip || size < GzipThreshold {
		return w, nopCloser{}
	}
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	h.Del("Content-Length")
	zw := gzip.NewWriter(w)
	return zw, zw
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
