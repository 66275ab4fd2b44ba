package reflector

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/fakeapiserver"
)

// A reflector run with a logger in its context labels every line with its
// name, resource and namespaces, and logs each error it reports.
func TestReflectorLogsThroughTheContextLogger(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "list", Resource: "configmaps"}, Code: 403})
	lw, err := NewListWatch[*ConfigMap](newClient(t, srv.URL()), Source{Resource: "configmaps", Namespace: "kube-system"})
	require.NoError(t, err)
	r, err := NewReflector[*ConfigMap](lw, cache.NewIndexer[*ConfigMap](nil), Options{Name: "cms", DisableStreamingList: true})
	require.NoError(t, err)
	var buf bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), loopbackTimeout)
	defer cancel()
	ctx = WithLogger(ctx, slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.Error(t, r.ListAndWatch(ctx), "the 403")

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		lines = append(lines, m)
		assert.Equal(t, "cms", m["reflector"])
		assert.Equal(t, "configmaps", m["resource"])
		assert.Equal(t, "kube-system", m["namespaces"])
	}
	var failed map[string]any
	for _, l := range lines {
		if l["msg"] == "list failed" {
			failed = l
		}
	}
	require.NotNil(t, failed, "%v", lines)
	assert.Equal(t, "WARN", failed["level"])
	assert.Equal(t, "needs-human", failed["class"])
	assert.Contains(t, failed["error"], "403")
	assert.Equal(t, "*", Description{}.NamespaceSet())
	assert.Equal(t, Description{}, Describe(&ListWatch[*ConfigMap]{}))
}
