package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// This file opens a watch over a websocket, as web consoles do: the server
// sends one text message per event, and the messages are read back to back
// as one stream, so the same frame decoder serves both transports.

// dialWebsocket opens the watch as a websocket.
func (r *Request) dialWebsocket(ctx context.Context) (io.ReadCloser, error) {
	if r.err != nil {
		return nil, r.err
	}
	c := r.c
	if c.limiter != nil {
		if err := c.limiter.Wait(ctx); err != nil {
			return nil, fmt.Errorf("rate limiter: %w", err)
		}
	}
	u := r.URL()
	origin := u.Scheme + "://" + u.Host
	switch u.Scheme {
	case "https":
		u.Scheme = "wss"
	default:
		u.Scheme = "ws"
	}
	h := http.Header{}
	for k, v := range r.headers {
		h[k] = v
	}
	if h.Get("Origin") == "" {
		h.Set("Origin", origin)
	}
	gen, hasToken, err := c.creds.apply(ctx, h)
	if err != nil {
		return nil, err
	}
	// A websocket upgrade is HTTP/1.1 only: offer nothing else in ALPN, or
	// a server that prefers HTTP/2 picks it and the handshake fails.
	tc := c.tls.Clone()
	tc.NextProtos = []string{"http/1.1"}
	d := websocket.Dialer{
		Proxy:            c.proxy,
		TLSClientConfig:  tc,
		HandshakeTimeout: 30 * time.Second,
	}
	start := c.clock.Now()
	conn, resp, err := d.DialContext(ctx, u.String(), h)
	if resp != nil {
		c.log.Debug("request", "method", "GET", "url", u.Redacted(), "status", resp.StatusCode, "websocket", true, "elapsed", c.clock.Now().Sub(start))
		c.creds.observe(resp.StatusCode, gen, hasToken)
	}
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, responseError(resp)
		}
		return nil, err
	}
	return &websocketStream{conn: conn}, nil
}

// websocketStream reads a websocket's messages as one byte stream. A close
// frame with code 1000 (what the server sends at timeoutSeconds) is a clean
// end of stream.
type websocketStream struct {
	conn *websocket.Conn
	cur  io.Reader // the message being read, nil between messages

	closeOnce sync.Once
	closeErr  error
}

// errBinaryMessage reports a binary websocket message: a protobuf stream,
// which kubecache does not ask for.
var errBinaryMessage = errors.New("websocket watch: binary message received; only JSON text messages are supported")

// Read implements io.Reader.
func (s *websocketStream) Read(p []byte) (int, error) {
	for {
		if s.cur == nil {
			typ, rd, err := s.conn.NextReader()
			if err != nil {
				if websocket.IsCloseError(err, websocket.CloseNormalClosure) {
					return 0, io.EOF
				}
				return 0, err
			}
			if typ != websocket.TextMessage {
				return 0, errBinaryMessage
			}
			s.cur = rd
		}
		n, err := s.cur.Read(p)
		if err == io.EOF {
			s.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

// Close says goodbye to the server and closes the connection, which ends a
// pending Read.
func (s *websocketStream) Close() error {
	s.closeOnce.Do(func() {
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		_ = s.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		s.closeErr = s.conn.Close()
	})
	return s.closeErr
}
