package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// A list over streamListMin is streamed (chunked, no Content-Length) and
// holds the same document a small list is assembled into: every item in
// key order, the list's resourceVersion, the trailing newline; the
// metadata-only form of the same list too.
func TestLargeListStreamed(t *testing.T) {
	s, c := newTestServer(t, Options{})
	big := strings.Repeat("x", 4000)
	const n = 300 // 300 × 4 KB: over streamListMin
	for i := range n {
		r := c.post(cmPath, fmt.Sprintf(`{"metadata":{"name":"cm-%03d"},"data":{"k":%q}}`, i, big))
		require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	}
	r := c.get(cmPath)
	require.Equal(t, http.StatusOK, r.code)
	assert.Empty(t, r.header.Get("Content-Length"), "a large list is streamed")
	assert.Equal(t, request.MediaJSON, r.header.Get("Content-Type"))
	require.NotEmpty(t, r.body)
	assert.Equal(t, byte('\n'), r.body[len(r.body)-1])
	l := decodeList(t, r)
	assert.Equal(t, "ConfigMapList", l.Kind)
	assert.Equal(t, fmt.Sprint(s.ResourceVersion()), l.Metadata["resourceVersion"])
	require.Len(t, l.Items, n)
	for i, item := range l.Items {
		var cm struct {
			Metadata struct{ Name string } `json:"metadata"`
			Data     map[string]string     `json:"data"`
		}
		require.NoError(t, json.Unmarshal(item, &cm))
		assert.Equal(t, fmt.Sprintf("cm-%03d", i), cm.Metadata.Name)
		assert.Equal(t, big, cm.Data["k"])
	}

	small := c.get(cmPath + "?limit=2")
	require.Equal(t, http.StatusOK, small.code)
	assert.Equal(t, fmt.Sprint(len(small.body)), small.header.Get("Content-Length"), "a small list is sent whole")
	assert.Len(t, decodeList(t, small).Items, 2)

	partial := c.get(cmPath, "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	require.Equal(t, http.StatusOK, partial.code)
	pl := decodeList(t, partial)
	assert.Equal(t, "PartialObjectMetadataList", pl.Kind)
	assert.Len(t, pl.Items, n)
}
