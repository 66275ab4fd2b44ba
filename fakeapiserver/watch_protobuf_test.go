package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/kubeproto"
)

// A websocket watch that asks for protobuf gets one binary message per
// event, each a WatchEvent message without the stream's length prefix.
func TestWebsocketWatchProtobuf(t *testing.T) {
	s, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	d := websocket.Dialer{Subprotocols: []string{"base64.binary.k8s.io"}}
	hdr := http.Header{"Origin": {"http://example.com"}, "Accept": {mediaProtobuf}}
	conn, _, err := d.Dial(wsURL(s, cmPath+"?watch=1&timeoutSeconds=5&resourceVersion="+rvOf(t, a)), hdr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 1))
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	typ, msg, err := conn.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, websocket.BinaryMessage, typ)
	event, err := kubeproto.DecodeWatchEvent(msg)
	require.NoError(t, err, "%q", msg)
	assert.True(t, strings.HasPrefix(string(event), `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b"`), "%s", event)
}

// A metadata-only watch in protobuf (what client-go's metadata informers
// ask for) sends PartialObjectMetadata objects.
func TestWatchPartialObjectMetadataProtobuf(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`)
	r := c.get(cmPath+"?watch=1&timeoutSeconds=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
		"Accept", mediaProtobuf+";as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json")
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, mediaProtobuf+";stream=watch", r.header.Get("Content-Type"))
	events := protobufWatchEvents(t, r.body)
	require.NotEmpty(t, events)
	assert.True(t, strings.HasPrefix(events[0], `{"type":"ADDED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a"`), events[0])
	assert.Contains(t, events[0], `"labels":{"x":"1"}`)
	assert.NotContains(t, events[0], `"data"`, "metadata only")
}
