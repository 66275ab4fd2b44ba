package rest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/await"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// testWait bounds each wait of these tests.
const testWait = 30 * time.Second

// gzipMember is one complete gzip member holding data, closed without a
// flush first, so that data sits in the member's final deflate block: a
// reader gets it only together with the member's end.
func gzipMember(t testing.TB, data string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(data))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// TestGzipMemberArrivesBeforeSilence serves a gzip-encoded watch whose
// events come one member each, and writes the second only once the client
// has seen the first: a client that waits for the next member's header
// before it hands over a member's last bytes never sees either.
func TestGzipMemberArrivesBeforeSilence(t *testing.T) {
	seen := make(chan struct{})
	accepted := make(chan string, 1)
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accepted <- r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher)
		_, _ = w.Write(gzipMember(t, watchEvents[0]+"\n"))
		f.Flush()
		select {
		case <-seen:
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write(gzipMember(t, watchEvents[1]+"\n"))
		f.Flush()
		<-r.Context().Done()
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	w, err := WatchAs[*testPod](t.Context(), c.Get().Namespace("ns").Resource("pods"))
	require.NoError(t, err)
	defer w.Stop()
	assert.Equal(t, "gzip", await.Receive(t, accepted, testWait))

	ev := await.Receive(t, w.ResultChan(), testWait)
	assert.Equal(t, watch.Added, ev.Type)
	close(seen)
	ev = await.Receive(t, w.ResultChan(), testWait)
	assert.Equal(t, watch.Modified, ev.Type)
	require.NotNil(t, ev.Object)
	assert.Equal(t, "n1", ev.Object.Spec.NodeName)
}

// TestGzipNotAskedWhenDisabled: with DisableCompression, or when the
// caller names an encoding itself, the client neither asks for gzip nor
// decodes what comes back.
func TestGzipNotAskedWhenDisabled(t *testing.T) {
	got := make(chan string, 1)
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`)
	}))
	c := newTestClient(t, &Config{Host: srv.URL, DisableCompression: true})
	require.NoError(t, c.Get().Resource("pods").Name("a").Do(t.Context()).Error())
	assert.Empty(t, await.Receive(t, got, testWait))

	c = newTestClient(t, &Config{Host: srv.URL})
	require.NoError(t, c.Get().Resource("pods").Name("a").Do(t.Context()).Error())
	assert.Equal(t, "gzip", await.Receive(t, got, testWait))
}

// TestGzipDecodesWholeResponse: a gzip-encoded answer to Do decodes, and
// the headers no longer speak of the encoding.
func TestGzipDecodesWholeResponse(t *testing.T) {
	body := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"7"}}`
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		half := len(body) / 2
		_, _ = w.Write(append(gzipMember(t, body[:half]), gzipMember(t, body[half:])...))
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	var pod testPod
	require.NoError(t, c.Get().Resource("pods").Name("a").Do(t.Context()).Into(&pod))
	assert.Equal(t, "7", pod.ResourceVersion)
}

func TestGzipBody(t *testing.T) {
	two := append(gzipMember(t, "one "), gzipMember(t, "two")...)
	for _, tc := range []struct {
		name    string
		in      []byte
		want    string
		wantErr error
	}{
		{name: "one member", in: gzipMember(t, "hello"), want: "hello"},
		{name: "two members", in: two, want: "one two"},
		{name: "empty member", in: append(gzipMember(t, ""), gzipMember(t, "x")...), want: "x"},
		{name: "empty body", in: nil, want: ""},
		{name: "cut in a trailer", in: two[:len(two)-3], want: "one two", wantErr: io.ErrUnexpectedEOF},
		{name: "cut in a header", in: two[:len(gzipMember(t, "one "))+4], want: "one ", wantErr: io.ErrUnexpectedEOF},
		{name: "not gzip", in: []byte("plain text"), wantErr: gzip.ErrHeader},
		{name: "garbage after a member", in: append(gzipMember(t, "a"), "not a gzip header"...), want: "a", wantErr: gzip.ErrHeader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gzipBody{body: io.NopCloser(nil), br: bufio.NewReader(bytes.NewReader(tc.in))}
			got, err := io.ReadAll(g)
			assert.Equal(t, tc.want, string(got))
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

// TestGzipBodyHandsOverBeforeNextHeader reads members from a pipe whose
// writer sends the second member only after the first member's data was
// read.
func TestGzipBodyHandsOverBeforeNextHeader(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	read := make(chan struct{})
	go func() {
		_, _ = pw.Write(gzipMember(t, "first"))
		<-read
		_, _ = pw.Write(gzipMember(t, "second"))
		pw.Close()
	}()
	g := &gzipBody{body: pr, br: bufio.NewReader(pr)}
	buf := make([]byte, 64)
	n, err := g.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "first", string(buf[:n]))
	close(read)
	rest, err := io.ReadAll(g)
	require.NoError(t, err)
	assert.Equal(t, "second", string(rest))
}

// FuzzGzipBody: any body decodes to data or an error, never a panic, and
// never more than the bytes a bounded reader lets through.
func FuzzGzipBody(f *testing.F) {
	f.Add(gzipMember(f, "hello"))
	f.Add(append(gzipMember(f, "a"), gzipMember(f, "b")...))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		g := &gzipBody{body: io.NopCloser(nil), br: bufio.NewReader(bytes.NewReader(in))}
		out, _ := io.ReadAll(io.LimitReader(g, 1<<20))
		assert.LessOrEqual(t, len(out), 1<<20)
		require.NoError(t, g.Close())
	})
}

// TestGzipListSaysItWasCompressed: ListWire reports the Content-Encoding
// a list came in, and its items decode.
func TestGzipListSaysItWasCompressed(t *testing.T) {
	list := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a"}}]}`
	var plain atomic.Bool
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if plain.Load() {
			_, _ = io.WriteString(w, list)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(gzipMember(t, list))
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	items := 0
	_, lm, enc, err := c.Get().Resource("pods").ListWire(t.Context(), func(meta.TypeMeta, []byte, Wire) error { items++; return nil })
	require.NoError(t, err)
	assert.Equal(t, Encoding{Wire: WireJSON, ContentEncoding: "gzip"}, enc)
	assert.Equal(t, "9", lm.ResourceVersion)
	assert.Equal(t, 1, items)

	plain.Store(true)
	_, _, enc, err = c.Get().Resource("pods").ListWire(t.Context(), func(meta.TypeMeta, []byte, Wire) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, Encoding{Wire: WireJSON}, enc)
}
