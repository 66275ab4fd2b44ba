package fakeapiserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchEventMetrics checks apiserver_watch_events_total and
// apiserver_watch_events_sizes: every event a watch sends counts (the
// initial ones and bookmarks too), labelled by the watched group,
// version and resource, with the size of the event as it went out (a
// protobuf frame without its length prefix).
func TestWatchEventMetrics(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	const list = "?watch=1&timeoutSeconds=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"

	r := c.get(cmPath + list)
	require.Equal(t, http.StatusOK, r.code)
	var jsonSizes []int
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	for sc.Scan() {
		jsonSizes = append(jsonSizes, len(sc.Bytes())+1)
	}
	require.Len(t, jsonSizes, 3, "two ADDED and the initial-events-end bookmark: %s", r.body)

	r = c.get("/api/v1/namespaces/default/secrets"+list, "Accept", mediaProtobuf)
	require.Equal(t, http.StatusOK, r.code)
	var protoSizes []int
	for b := r.body; len(b) >= 4; {
		n := int(binary.BigEndian.Uint32(b))
		protoSizes = append(protoSizes, n)
		b = b[4+n:]
	}
	require.Len(t, protoSizes, 1, "the bookmark")

	want := []string{
		`apiserver_watch_events_total{group="",resource="configmaps",version="v1"} 3`,
		`apiserver_watch_events_sizes_count{group="",resource="configmaps",version="v1"} 3`,
		`apiserver_watch_events_sizes_sum{group="",resource="configmaps",version="v1"} ` + strconv.Itoa(sum(jsonSizes)),
		`apiserver_watch_events_sizes_bucket{group="",resource="configmaps",version="v1",le="1024"} 3`,
		`apiserver_watch_events_total{group="",resource="secrets",version="v1"} 1`,
		`apiserver_watch_events_sizes_sum{group="",resource="secrets",version="v1"} ` + strconv.Itoa(protoSizes[0]),
	}
	var out string
	require.Eventually(t, func() bool {
		out = string(c.get("/metrics").body)
		return strings.Contains(out, want[0]+"\n") && strings.Contains(out, want[4]+"\n")
	}, 10*time.Second, 10*time.Millisecond, "watch events not counted")
	for _, line := range want {
		assert.Contains(t, out, line+"\n")
	}
	assert.Less(t, strings.Index(out, "# TYPE apiserver_watch_events_sizes histogram"), strings.Index(out, "# TYPE apiserver_watch_events_total counter"), "families in name order")
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
