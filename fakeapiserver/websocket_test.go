package fakeapiserver

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func wsURL(s *Server, path string) string {
	return "ws" + strings.TrimPrefix(s.URL(), "http") + path
}

func TestWebsocketWatch(t *testing.T) {
	s, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	d := websocket.Dialer{Subprotocols: []string{"base64.binary.k8s.io"}}
	hdr := http.Header{"Origin": {"http://example.com"}}
	conn, resp, err := d.Dial(wsURL(s, cmPath+"?watch=1&timeoutSeconds=1&resourceVersion="+rvOf(t, a)), hdr)
	require.NoError(t, err)
	defer conn.Close()
	assert.Equal(t, "base64.binary.k8s.io", resp.Header.Get("Sec-WebSocket-Protocol"), "the one subprotocol is echoed")
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 1))
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	typ, msg, err := conn.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, websocket.TextMessage, typ)
	assert.True(t, strings.HasPrefix(string(msg), `{"type":"ADDED","object":{"kind":"ConfigMap"`))
	assert.True(t, strings.HasSuffix(string(msg), "}\n"), "one message per event, newline included")
	_, _, err = conn.ReadMessage()
	var ce *websocket.CloseError
	require.ErrorAs(t, err, &ce, "the watch ends at timeoutSeconds with a close frame")
	assert.Equal(t, websocket.CloseNormalClosure, ce.Code)
}

func TestWebsocketRules(t *testing.T) {
	s, _ := newTestServer(t, Options{Tokens: map[string]User{"secret": {Name: "u"}}})
	path := cmPath + "?watch=1"
	tokenProto := "base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte("secret"))
	dial := func(origin bool, protos ...string) int {
		d := websocket.Dialer{Subprotocols: protos}
		hdr := http.Header{"Authorization": {"Bearer secret"}}
		if origin {
			hdr.Set("Origin", "http://example.com")
		}
		if len(protos) > 0 && protos[0] == tokenProto {
			hdr.Del("Authorization")
		}
		conn, resp, err := d.Dial(wsURL(s, path), hdr)
		if err == nil {
			conn.Close()
			return http.StatusSwitchingProtocols
		}
		require.NotNil(t, resp, "dial: %v", err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusForbidden, dial(false), "Origin is required")
	assert.Equal(t, http.StatusBadRequest, dial(true, "a.k8s.io", "b.k8s.io"), "at most one subprotocol")
	assert.Equal(t, http.StatusUnauthorized, dial(true, tokenProto), "the bearer subprotocol needs another")
	assert.Equal(t, http.StatusSwitchingProtocols, dial(true, tokenProto, "base64.binary.k8s.io"))
	assert.Equal(t, http.StatusSwitchingProtocols, dial(true))
}
