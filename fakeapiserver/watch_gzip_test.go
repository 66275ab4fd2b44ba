package fakeapiserver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawGet sends a GET that asks for gzip itself, so the body is read as
// sent on the wire.
func rawGet(t *testing.T, s *Server, path string, headers ...string) *http.Response {
	t.Helper()
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, s.URL()+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Encoding", "gzip")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestStreamingListIsGzipEncoded(t *testing.T) {
	s, c := newTestServer(t, Options{})
	for _, n := range []string{"a", "b"} {
		c.mustCreate(cmPath, `{"metadata":{"name":"`+n+`"}}`)
	}
	const list = cmPath + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"
	resp := rawGet(t, s, list)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"))

	// Concatenated gzip members, one a flush: each is read on its own as
	// it arrives.
	br := bufio.NewReader(resp.Body)
	var zr *gzip.Reader
	member := func() []map[string]any {
		t.Helper()
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(br)
		} else {
			err = zr.Reset(br)
		}
		require.NoError(t, err)
		zr.Multistream(false)
		data, err := io.ReadAll(zr)
		require.NoError(t, err)
		var events []map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		for dec.More() {
			var ev map[string]any
			require.NoError(t, dec.Decode(&ev))
			events = append(events, ev)
		}
		return events
	}
	var got []string
	for len(got) == 0 || got[len(got)-1] != "BOOKMARK" {
		for _, ev := range member() {
			typ := ev["type"].(string)
			if typ == "BOOKMARK" {
				assert.Equal(t, "true", dig(ev, "object", "metadata", "annotations", "k8s.io/initial-events-end"))
				got = append(got, typ)
				continue
			}
			got = append(got, typ+" "+dig(ev, "object", "metadata", "name").(string))
		}
	}
	assert.Equal(t, []string{"ADDED a", "ADDED b", "BOOKMARK"}, got)
	c.mustCreate(cmPath, `{"metadata":{"name":"c"}}`)
	events := member()
	require.Len(t, events, 1)
	assert.Equal(t, "ADDED", events[0]["type"])
	assert.Equal(t, "c", dig(events[0], "object", "metadata", "name"))

	// In protobuf too.
	pb := rawGet(t, s, list, "Accept", mediaProtobuf+";stream=watch")
	assert.Equal(t, "gzip", pb.Header.Get("Content-Encoding"))
	assert.Equal(t, mediaProtobuf+";stream=watch", pb.Header.Get("Content-Type"))
}

func TestPlainWatchIsNotGzipEncoded(t *testing.T) {
	s, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	resp := rawGet(t, s, cmPath+"?watch=1&resourceVersion=1")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Content-Encoding"), "only streaming lists are compressed")
	var ev struct {
		Type string `json:"type"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ev))
	assert.Equal(t, "ADDED", ev.Type)
}

// The transport's own gzip decoding (what client-go and the kubecache
// client use) sees every event of a streaming list as soon as it is
// flushed, without waiting for the next gzip member.
func TestStreamingListThroughTransportGzip(t *testing.T) {
	s, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	// Well before the next bookmark the server would send on its own.
	ctx, cancel := context.WithTimeout(testContext(t), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		s.URL()+cmPath+"?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan", nil)
	require.NoError(t, err)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.True(t, resp.Uncompressed, "the transport asked for gzip and decoded it")
	dec := json.NewDecoder(resp.Body)
	var types []string
	for len(types) < 2 {
		var ev struct {
			Type string `json:"type"`
		}
		require.NoError(t, dec.Decode(&ev))
		types = append(types, ev.Type)
	}
	assert.Equal(t, []string{"ADDED", "BOOKMARK"}, types)
	require.NoError(t, ctx.Err(), "the initial-events-end bookmark arrives without waiting for a later gzip member")
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	var ev struct {
		Type string `json:"type"`
	}
	require.NoError(t, dec.Decode(&ev))
	assert.Equal(t, "ADDED", ev.Type)
	require.NoError(t, ctx.Err(), "later events arrive as they are flushed")
}
