package rest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// watchEvents is a watch stream as a real server writes it: one compact
// event per line.
var watchEvents = []string{
	`{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"10"}}}`,
	`{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"11"},"spec":{"nodeName":"n1"}}}`,
	`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12","creationTimestamp":null},"spec":{"containers":null}}}`,
	`{"type":"DELETED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"13"}}}`,
	`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}`,
}

// chunkedWatchServer writes the events in awkward chunks: several events
// in one write, one event split across writes.
func chunkedWatchServer(t *testing.T, check func(r *http.Request)) string {
	t.Helper()
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check != nil {
			check(r)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher)
		f.Flush()
		all := strings.Join(watchEvents, "\n") + "\n"
		for i := 0; i < len(all); i += 37 {
			io.WriteString(w, all[i:min(i+37, len(all))])
			f.Flush()
		}
	}))
	return srv.URL
}

func collect[T any](t *testing.T, w watch.Interface[T]) []watch.Event[T] {
	t.Helper()
	var got []watch.Event[T]
	for ev := range w.ResultChan() {
		got = append(got, ev)
	}
	return got
}

func checkWatchEvents(t *testing.T, got []watch.Event[*testPod]) {
	t.Helper()
	require.Len(t, got, 5)
	assert.Equal(t, watch.Added, got[0].Type)
	assert.Equal(t, "a", got[0].Object.Name)
	assert.Equal(t, "10", got[0].Object.ResourceVersion)
	assert.Equal(t, watch.Modified, got[1].Type)
	assert.Equal(t, "n1", got[1].Object.Spec.NodeName)
	assert.Equal(t, watch.Bookmark, got[2].Type)
	assert.Equal(t, "12", got[2].Object.ResourceVersion)
	assert.Equal(t, watch.Deleted, got[3].Type)
	assert.Equal(t, "13", got[3].Object.ResourceVersion)
	assert.Equal(t, watch.Error, got[4].Type)
	require.NotNil(t, got[4].Status)
	assert.True(t, IsGone(got[4].Status))
}

func TestWatchChunked(t *testing.T) {
	url := chunkedWatchServer(t, func(r *http.Request) {
		assert.Equal(t, "true", r.URL.Query().Get("watch"))
		assert.Equal(t, "5", r.URL.Query().Get("resourceVersion"))
		assert.Equal(t, "/api/v1/namespaces/ns/pods", r.URL.Path)
	})
	c := newTestClient(t, &Config{Host: url})
	w, err := WatchAs[*testPod](t.Context(), c.Get().Namespace("ns").Resource("pods").Param("resourceVersion", "5"))
	require.NoError(t, err)
	checkWatchEvents(t, collect(t, w))
	w.Stop()
}

func TestWatchStopAndCancel(t *testing.T) {
	release := make(chan struct{})
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, watchEvents[0]+"\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer close(release)
	c := newTestClient(t, &Config{Host: srv.URL})

	w, err := WatchAs[*testPod](t.Context(), c.Get().Resource("pods"))
	require.NoError(t, err)
	ev := <-w.ResultChan()
	assert.Equal(t, watch.Added, ev.Type)
	w.Stop()
	_, open := <-w.ResultChan()
	assert.False(t, open)

	ctx, cancel := context.WithCancel(t.Context())
	w, err = WatchAs[*testPod](ctx, c.Get().Resource("pods"))
	require.NoError(t, err)
	<-w.ResultChan()
	cancel()
	for range w.ResultChan() {
	}
	w.Stop()
}

func TestWatchErrorResponse(t *testing.T) {
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, "Too many requests, please try again later.")
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	_, err := WatchAs[*testPod](t.Context(), c.Get().Resource("pods"))
	ra, ok := IsTooManyRequests(err)
	assert.True(t, ok, "got %v", err)
	assert.Equal(t, "2s", ra.String())
	assert.Contains(t, err.Error(), "watch pods")
}

// websocketWatchServer upgrades the watch and sends one text message per
// event, as the API server does, then closes with 1000.
func websocketWatchServer(t *testing.T, tlsServer bool) string {
	t.Helper()
	up := websocket.Upgrader{CheckOrigin: func(r *http.Request) bool { return r.Header.Get("Origin") != "" }}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") == "" {
			http.Error(w, "no origin", http.StatusForbidden)
			return
		}
		if r.Header.Get("Authorization") != "Bearer ws-token" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, statusBody(401, meta.ReasonUnauthorized, "Unauthorized", ""))
			return
		}
		if r.URL.Query().Get("watch") != "true" {
			http.Error(w, "not a watch", http.StatusBadRequest)
			return
		}
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		for _, ev := range watchEvents {
			if err := conn.WriteMessage(websocket.TextMessage, []byte(ev+"\n")); err != nil {
				return
			}
		}
		conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
		// Wait for the client's close.
		for {
			if _, _, err := conn.NextReader(); err != nil {
				return
			}
		}
	})
	if tlsServer {
		return newTLSServer(t, h).URL
	}
	return newPlainServer(t, h).URL
}

func TestWatchWebsocket(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", useTLS), func(t *testing.T) {
			url := websocketWatchServer(t, useTLS)
			p := getPKI(t)
			c := newTestClient(t, &Config{Host: url, BearerToken: "ws-token", TLS: TLSConfig{CAData: p.caPEM}})
			// A plain request first: over TLS it speaks HTTP/2, which must
			// not leak into the websocket's TLS handshake.
			err := c.Get().Namespace("ns").Resource("pods").Do(t.Context()).Error()
			require.True(t, IsForbidden(err), "plain GET without Origin: %v", err)
			w, err := WatchAs[*testPod](t.Context(), c.Get().Namespace("ns").Resource("pods").Transport(WatchOverWebsocket))
			require.NoError(t, err)
			checkWatchEvents(t, collect(t, w))
			w.Stop()
		})
	}
}

func TestWatchWebsocketRejected(t *testing.T) {
	url := websocketWatchServer(t, false)
	c := newTestClient(t, &Config{Host: url, BearerToken: "wrong"})
	_, err := WatchAs[*testPod](t.Context(), c.Get().Resource("pods").Transport(WatchOverWebsocket))
	assert.True(t, IsUnauthorized(err), "got %v", err)
}

func TestWatchUnstructured(t *testing.T) {
	url := chunkedWatchServer(t, nil)
	c := newTestClient(t, &Config{Host: url})
	w, err := c.Get().Namespace("ns").Resource("pods").Watch(t.Context())
	require.NoError(t, err)
	defer w.Stop()
	got := collect(t, w)
	require.Len(t, got, 5)
	assert.Equal(t, "Pod", got[0].Object.Kind)
	assert.Equal(t, "a", got[0].Object.Name)
	assert.Equal(t, "11", got[1].Object.ResourceVersion)
	assert.True(t, IsGone(got[4].Status))
}

// TestWatchHTTP2 runs a chunked watch over TLS, where the transport
// speaks HTTP/2: events arrive in DATA frames instead of chunks.
func TestWatchHTTP2(t *testing.T) {
	p := getPKI(t)
	protos := make(chan int, 1)
	srv := newTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos <- r.ProtoMajor
		w.WriteHeader(http.StatusOK)
		for _, ev := range watchEvents {
			io.WriteString(w, ev+"\n")
			w.(http.Flusher).Flush()
		}
	}))
	c := newTestClient(t, &Config{Host: srv.URL, TLS: TLSConfig{CAData: p.caPEM}})
	w, err := WatchAs[*testPod](t.Context(), c.Get().Namespace("ns").Resource("pods"))
	require.NoError(t, err)
	checkWatchEvents(t, collect(t, w))
	w.Stop()
	assert.Equal(t, 2, <-protos)
}

func TestWatchFrameBoundFromConfig(t *testing.T) {
	url := chunkedWatchServer(t, nil)
	// The first event is about 120 bytes: a 64-byte bound refuses it.
	c := newTestClient(t, &Config{Host: url, MaxWatchFrameBytes: 64})
	w, err := WatchAs[*testPod](t.Context(), c.Get().Namespace("ns").Resource("pods"))
	require.NoError(t, err)
	got := collect(t, w)
	require.Len(t, got, 1, "events before the oversized frame ended the watch")
	assert.Equal(t, watch.DecodeFailed, got[0].Type)
	assert.ErrorIs(t, got[0].Err, watch.ErrFrameTooLarge)

	// Code that decodes Stream itself reads the same bound off the request.
	assert.Equal(t, 64, c.Get().MaxWatchFrameBytes())
	assert.Zero(t, newTestClient(t, &Config{Host: url}).Get().MaxWatchFrameBytes(), "0: the decoder's default")

	_, err = NewClient(&Config{Host: url, MaxWatchFrameBytes: -1})
	assert.ErrorContains(t, err, "MaxWatchFrameBytes")
}

func TestParseWatchTransport(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want WatchTransport
	}{{"", WatchOverHTTP}, {"http", WatchOverHTTP}, {"websocket", WatchOverWebsocket}} {
		got, err := ParseWatchTransport(tc.in)
		require.NoError(t, err, "ParseWatchTransport(%q)", tc.in)
		assert.Equal(t, tc.want, got, "ParseWatchTransport(%q)", tc.in)
	}
	assert.Equal(t, "http", WatchOverHTTP.String())
	assert.Equal(t, "websocket", WatchOverWebsocket.String())
	_, err := ParseWatchTransport("spdy")
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.ErrorContains(t, err, `"spdy"`)
}

func TestWatchUnknownTransport(t *testing.T) {
	url := chunkedWatchServer(t, func(*http.Request) { t.Error("a watch with an unknown transport reached the server") })
	c := newTestClient(t, &Config{Host: url})
	_, err := WatchAs[*testPod](t.Context(), c.Get().Resource("pods").Transport(WatchTransport(7)))
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.Equal(t, "WatchTransport(7)", WatchTransport(7).String())
}

// TestWatchDecodedUsesTheGivenDecoder: WatchDecoded hands each event's raw
// object to decode, over either transport.
func TestWatchDecodedUsesTheGivenDecoder(t *testing.T) {
	for _, tr := range []WatchTransport{WatchOverHTTP, WatchOverWebsocket} {
		t.Run(tr.String(), func(t *testing.T) {
			url := chunkedWatchServer(t, nil)
			token := ""
			if tr == WatchOverWebsocket {
				url, token = websocketWatchServer(t, false), "ws-token"
			}
			c := newTestClient(t, &Config{Host: url, BearerToken: token})
			var raws []string
			w, err := WatchDecoded(t.Context(), c.Get().Namespace("ns").Resource("pods").Transport(tr), func(raw []byte) (string, error) {
				raws = append(raws, string(raw))
				return "decoded", nil
			})
			require.NoError(t, err)
			defer w.Stop()
			var got []watch.EventType
			for ev := range w.ResultChan() {
				got = append(got, ev.Type)
				if ev.Type != watch.Error {
					assert.Equal(t, "decoded", ev.Object)
				}
			}
			assert.Equal(t, []watch.EventType{watch.Added, watch.Modified, watch.Bookmark, watch.Deleted, watch.Error}, got)
			require.Len(t, raws, 4, "the ERROR event's Status is not the caller's to decode")
			assert.Contains(t, raws[0], `"name":"a"`)
		})
	}
}
