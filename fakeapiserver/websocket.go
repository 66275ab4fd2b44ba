package fakeapiserver

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/auth"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// WebSocket watch: the same events, one text message each (with the
// trailing newline), for clients that upgrade the watch request. The real
// server requires an Origin header, echoes at most one subprotocol, and
// accepts a bearer token carried as the subprotocol
// base64url.bearer.authorization.k8s.io.<token> when another one remains.

// checkWebsocket applies the real server's rules before the upgrade.
func (s *Server) checkWebsocket(r *http.Request) (string, error) {
	if r.Header.Get("Origin") == "" {
		return "", apistatus.New(403, meta.ReasonForbidden, "websocket requests must carry an Origin header")
	}
	_, hasToken, rest, err := request.WebsocketProtocols(r)
	if err != nil {
		return "", auth.Unauthorized()
	}
	if hasToken && len(rest) == 0 {
		return "", auth.Unauthorized()
	}
	if len(rest) > 1 {
		return "", apistatus.BadRequest("at most one websocket subprotocol may be requested, got " + strings.Join(rest, ", "))
	}
	if len(rest) == 1 {
		return rest[0], nil
	}
	return "", nil
}

func (s *Server) serveWebsocketWatch(w http.ResponseWriter, r *http.Request, wr watchRequest) {
	proto, err := s.checkWebsocket(r)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	up := websocket.Upgrader{
		CheckOrigin:     func(*http.Request) bool { return true },
		ReadBufferSize:  1024,
		WriteBufferSize: 32 << 10,
	}
	var hdr http.Header
	if proto != "" {
		hdr = http.Header{"Sec-WebSocket-Protocol": {proto}}
	}
	conn, err := up.Upgrade(w, r, hdr)
	if err != nil {
		return // the upgrader has answered
	}
	sink := &wsSink{conn: conn, readerDone: make(chan struct{}), protobuf: wr.protobuf}
	// Client messages are read and discarded; the reader also notices the
	// client closing. It ends when the connection closes.
	go func() {
		defer close(sink.readerDone)
		for {
			if _, _, err := conn.NextReader(); err != nil {
				return
			}
		}
	}()
	defer sink.close()
	s.runWatch(r.Context(), wr, sink)
}

// wsSink writes one message per event: a text message holding the JSON
// line, or (protobuf) a binary message holding the WatchEvent.
type wsSink struct {
	// mu serializes writes with abort and close.
	mu         sync.Mutex
	conn       *websocket.Conn
	readerDone chan struct{}
	closed     bool
	protobuf   bool
}

func (ws *wsSink) frame(typ watch.EventType, object []byte) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.protobuf {
		return ws.conn.WriteMessage(websocket.BinaryMessage, kubeproto.AppendWatchFrame(nil, string(typ), object)[4:])
	}
	msg := make([]byte, 0, len(object)+32)
	msg = append(msg, `{"type":"`...)
	msg = append(msg, typ...)
	msg = append(msg, `","object":`...)
	msg = append(msg, object...)
	msg = append(msg, "}\n"...)
	return ws.conn.WriteMessage(websocket.TextMessage, msg)
}

func (ws *wsSink) flush() error { return nil }

func (ws *wsSink) setWriteDeadline(t time.Time) { _ = ws.conn.SetWriteDeadline(t) }

func (ws *wsSink) abort() { _ = ws.conn.UnderlyingConn().SetWriteDeadline(time.Unix(1, 0)) }

func (ws *wsSink) halfFrame(typ watch.EventType, object []byte) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w, err := ws.conn.NextWriter(websocket.TextMessage); err == nil {
		_, _ = w.Write(append([]byte(`{"type":"`+string(typ)+`","object":`), object[:len(object)/2]...))
		// Not closing w: the message is never finished.
	}
	ws.closeLocked()
}

func (ws *wsSink) cut() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.closeLocked()
}

// end sends the close frame with code 1000, as at a watch timeout.
// begin does nothing: the upgrade has answered already.
func (ws *wsSink) begin() {}

func (ws *wsSink) end() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return
	}
	_ = ws.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	ws.closeLocked()
}

func (ws *wsSink) closeLocked() {
	if !ws.closed {
		ws.closed = true
		_ = ws.conn.Close()
	}
}

// close ends the connection and waits for the reader goroutine.
func (ws *wsSink) close() {
	ws.mu.Lock()
	ws.closeLocked()
	ws.mu.Unlock()
	<-ws.readerDone
}
