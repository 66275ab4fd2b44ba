package hostile

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// Counter counts what an attack sent: items, pages, bytes or requests.
type Counter struct{ n atomic.Int64 }

// Add adds d.
func (c *Counter) Add(d int64) {
	if c != nil {
		c.n.Add(d)
	}
}

// Load returns the count.
func (c *Counter) Load() int64 { return c.n.Load() }

// configMap returns one ConfigMap item: name cm-<i>, resourceVersion
// <rv>, and one data value of pad bytes.
func configMap(i, rv int64, pad int) []byte {
	return fmt.Appendf(nil, `{"metadata":{"name":"cm-%d","namespace":"default","resourceVersion":"%d"},"data":{"k":%q}}`,
		i, rv, strings.Repeat("x", pad))
}

// EndlessList answers every request with a ConfigMapList whose items never
// end: items of about itemSize bytes, written and flushed until the client
// goes away. items counts the items written (nil: not counted).
func EndlessList(itemSize int, items *Counter) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if _, err := w.Write([]byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`)); err != nil {
			return
		}
		f, _ := w.(http.Flusher)
		var buf bytes.Buffer
		for i := int64(0); r.Context().Err() == nil; i++ {
			buf.Reset()
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(configMap(i, 7, itemSize))
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			items.Add(1)
			if i%64 == 0 && f != nil {
				f.Flush()
			}
		}
	}
}

// ContinueCycle answers a paged list with pages of one item whose continue
// tokens go round a cycle of the given period: the first page hands out
// "t0", the page for "t<k>" hands out "t<(k+1) mod period>". A period of
// 1 repeats the token it was given. pages counts the pages served.
func ContinueCycle(period int, pages *Counter) http.HandlerFunc {
	var served atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		next := 0
		if tok := r.URL.Query().Get("continue"); tok != "" {
			k, err := strconv.Atoi(strings.TrimPrefix(tok, "t"))
			if err != nil || !strings.HasPrefix(tok, "t") {
				http.Error(w, "bad continue token", http.StatusBadRequest)
				return
			}
			next = (k + 1) % period
		}
		i := served.Add(1)
		pages.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"t%d"},"items":[%s]}`,
			next, configMap(i, 7, 8))
	}
}

// LargeFrame answers a watch with one ADDED event of about size bytes,
// generated as it is written (the server never holds it), then holds the
// stream open until the client goes away. sent counts the bytes written.
func LargeFrame(size int, sent *Counter) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		f, _ := w.(http.Flusher)
		head := []byte(`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"big","namespace":"default","resourceVersion":"8"},"data":{"k":"`)
		if _, err := w.Write(head); err != nil {
			return
		}
		chunk := bytes.Repeat([]byte{'x'}, 64<<10)
		for left := size; left > 0; left -= len(chunk) {
			n := min(left, len(chunk))
			if _, err := w.Write(chunk[:n]); err != nil {
				return
			}
			sent.Add(int64(n))
		}
		if _, err := w.Write([]byte("\"}}}\n")); err != nil {
			return
		}
		if f != nil {
			f.Flush()
		}
		<-r.Context().Done()
	}
}

// TooManyRequests answers every request 429 with the given Retry-After
// header and a Status body. hits counts the requests.
func TooManyRequests(retryAfter string, hits *Counter) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", retryAfter)
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","code":429}`)
	}
}
