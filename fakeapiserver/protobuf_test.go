package fakeapiserver

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/kubeproto"
)

const mediaProtobuf = "application/vnd.kubernetes.protobuf"

// protobufBody encodes a JSON object as the protobuf body client-go sends.
func protobufBody(t *testing.T, js string) string {
	t.Helper()
	b, err := kubeproto.Encode([]byte(js))
	require.NoError(t, err)
	return string(b)
}

// decodeProtobuf decodes a protobuf response body to JSON.
func decodeProtobuf(t *testing.T, r response) string {
	t.Helper()
	require.Equal(t, mediaProtobuf, r.header.Get("Content-Type"), "body %q", r.body)
	js, err := kubeproto.Decode(r.body)
	require.NoError(t, err)
	return string(js)
}

func TestProtobufCreateGetListDelete(t *testing.T) {
	// A stopped clock: the continue token of a limited list records when
	// it was issued, and the answers compared below must not straddle a
	// second.
	_, c := newTestServer(t, Options{Clock: NewFakeClock(time.Unix(1e9, 0))})
	body := protobufBody(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`)
	r := c.post(cmPath, body, "Content-Type", mediaProtobuf, "Accept", mediaProtobuf+", application/json")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	created := decodeProtobuf(t, r)
	assert.Contains(t, created, `"name":"a","namespace":"default"`)
	assert.Contains(t, created, `"data":{"k":"v"}`)

	// The same object in JSON and in protobuf.
	js := c.get(cmPath+"/a", "Accept", "application/json")
	pb := c.get(cmPath+"/a", "Accept", mediaProtobuf)
	assert.Equal(t, strings.TrimSpace(string(js.body)), decodeProtobuf(t, pb))

	c.mustCreate(cmPath, `{"metadata":{"name":"b"},"binaryData":{"x":"AAE="}}`)
	for _, q := range []string{"", "?limit=1"} {
		list := c.get(cmPath+q, "Accept", mediaProtobuf)
		jsList := c.get(cmPath+q, "Accept", "application/json")
		assert.Equal(t, strings.TrimSpace(string(jsList.body)), decodeProtobuf(t, list), "list%s", q)
		// Twice: the second answer comes from the cached item encodings.
		assert.Equal(t, list.body, c.get(cmPath+q, "Accept", mediaProtobuf).body)
	}

	meta := c.get(cmPath, "Accept", mediaProtobuf+";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	assert.Contains(t, decodeProtobuf(t, meta), `"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1"`)

	// DeleteOptions in protobuf, as client-go's typed Delete sends them.
	opts := protobufBody(t, `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background","dryRun":["All"]}`)
	r = c.do(http.MethodDelete, cmPath+"/a", opts, "Content-Type", mediaProtobuf, "Accept", mediaProtobuf)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, http.StatusOK, c.get(cmPath+"/a").code, "a dry-run delete leaves the object")

	// Errors come back as a protobuf Status when protobuf is asked.
	nf := c.get(cmPath+"/missing", "Accept", mediaProtobuf+", application/json")
	assert.Equal(t, http.StatusNotFound, nf.code)
	assert.Contains(t, decodeProtobuf(t, nf), `"reason":"NotFound"`)
}

func TestProtobufBadBodies(t *testing.T) {
	_, c := newTestServer(t, Options{})
	for _, tc := range []struct {
		name, body string
		code       int
		msg        string
	}{
		{"empty", "", 400, "the object provided is unrecognized (must be of type ConfigMap): empty data (<empty>)"},
		{"no magic", "nonsense", 400, "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (6e6f6e73656e7365)"},
		{"garbage", "k8s\x00garbage", 400, "the object provided is unrecognized (must be of type ConfigMap): proto: illegal wireType 7 (6b38730067617262616765)"},
		{"truncated", string(kubeproto.AppendEnvelope(nil, "v1", "ConfigMap", []byte{0x0a, 0x50, 1})), 400, `ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF`},
		{"wrong kind", protobufBody(t, `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"}}`), 400, `cannot be handled as a ConfigMap`},
		{"wrong group version", string(kubeproto.AppendEnvelope(nil, "apps/v1", "ConfigMap", nil)), 400, `cannot be handled as a ConfigMap`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.post(cmPath, tc.body, "Content-Type", mediaProtobuf)
			assert.Equal(t, tc.code, r.code)
			assert.Contains(t, r.status(t).Message, tc.msg)
		})
	}
}

func TestProtobufCustomResource(t *testing.T) {
	_, c := newTestServer(t, Options{})
	// The CRD itself is a built-in kind, created in protobuf as the
	// apiextensions clientset does.
	r := c.post(crdPath, protobufBody(t, widgetCRD), "Content-Type", mediaProtobuf, "Accept", mediaProtobuf)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Contains(t, decodeProtobuf(t, r), `"x-kubernetes-preserve-unknown-fields":true`)
	body := protobufBody(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}`)
	r = c.post(widgetPath, body, "Content-Type", mediaProtobuf)
	assert.Equal(t, http.StatusUnsupportedMediaType, r.code)
	// Responses for custom resources are JSON even when protobuf is asked first.
	r = c.get(widgetPath, "Accept", mediaProtobuf+", application/json")
	assert.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
}

// protobufWatchEvents decodes a protobuf watch stream's frames, each
// event as JSON, up to the first frame that does not read whole.
func protobufWatchEvents(t *testing.T, body []byte) []string {
	t.Helper()
	rd := bytes.NewReader(body)
	var events []string
	for {
		frame, err := kubeproto.ReadFrame(rd, kubeproto.MaxFrameSize)
		if err != nil {
			return events
		}
		line, err := kubeproto.DecodeWatchEvent(frame)
		require.NoError(t, err)
		events = append(events, string(line))
	}
}

func TestProtobufWatch(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	r := c.get(cmPath+"?watch=1&timeoutSeconds=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
		"Accept", mediaProtobuf+", application/json")
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, mediaProtobuf+";stream=watch", r.header.Get("Content-Type"))
	events := protobufWatchEvents(t, r.body)
	require.Len(t, events, 2, "%q", events)
	assert.True(t, strings.HasPrefix(events[0], `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"`), events[0])
	assert.Contains(t, events[1], `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":`)
	assert.Contains(t, events[1], `"annotations":{"k8s.io/initial-events-end":"true"}`)
}

func TestNegotiationOrder(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	for _, tc := range []struct{ accept, want string }{
		{"application/json, " + mediaProtobuf, "application/json"},
		{mediaProtobuf + ", application/json", mediaProtobuf},
		{"application/json;q=0.5, " + mediaProtobuf + ";q=0.9", mediaProtobuf},
		{"application/yaml;q=0.5, " + mediaProtobuf + ";q=0.9", mediaProtobuf},
		{"*/*", "application/json"},
		{"text/html, */*;q=0.1", "application/json"},
		{mediaProtobuf + ";q=0, application/json", "application/json"},
	} {
		r := c.get(cmPath+"/a", "Accept", tc.accept)
		assert.Equal(t, http.StatusOK, r.code, tc.accept)
		assert.Equal(t, tc.want, r.header.Get("Content-Type"), "Accept: %s", tc.accept)
	}
	r := c.get(cmPath+"/a", "Accept", "text/html")
	assert.Equal(t, http.StatusNotAcceptable, r.code)
	assert.Equal(t, "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf", r.status(t).Message)
	r = c.get(cmPath, "Accept", "text/html")
	assert.Equal(t, "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch", r.status(t).Message)
}

func TestGzipLargeResponses(t *testing.T) {
	_, c := newTestServer(t, Options{})
	big := strings.Repeat("y", 1000)
	for i := range 140 {
		c.mustCreate(cmPath, fmt.Sprintf(`{"metadata":{"name":"big-%03d"},"data":{"x":%q}}`, i, big))
	}
	for _, accept := range []string{"application/json", mediaProtobuf} {
		// Below the threshold: as is.
		small := c.get(cmPath+"?limit=10", "Accept", accept, "Accept-Encoding", "gzip")
		assert.Empty(t, small.header.Get("Content-Encoding"), accept)
		// A client that does not accept gzip never gets it.
		plain := c.get(cmPath, "Accept", accept)
		assert.Empty(t, plain.header.Get("Content-Encoding"), accept)
		assert.Greater(t, len(plain.body), 128<<10, accept)
		// Past 128 KiB, gzip.
		r := c.get(cmPath, "Accept", accept, "Accept-Encoding", "gzip")
		assert.Equal(t, "gzip", r.header.Get("Content-Encoding"), accept)
		assert.Equal(t, "Accept-Encoding", r.header.Get("Vary"), accept)
		zr, err := gzip.NewReader(bytes.NewReader(r.body))
		require.NoError(t, err)
		body, err := io.ReadAll(zr)
		require.NoError(t, err)
		assert.Equal(t, plain.body, body, accept)
	}
}
