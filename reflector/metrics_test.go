package reflector

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/metrics"
)

func TestMetricsCountListsWatchesAndRelists(t *testing.T) {
	var reg metrics.Registry
	l := startLoopback(t, fakeapiserver.Options{}, Options{Metrics: &reg, DisableStreamingList: true})
	l.create("a", "1")
	l.waitSynced()
	// A cut watch that resumes from a compacted resourceVersion relists:
	// a write elsewhere moves the resourceVersion past the watch's.
	l.create("b", "1")
	require.NoError(t, l.srv.Load(t.Context(), []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"elsewhere","namespace":"kube-system"}}`)))
	l.srv.CompactNow()
	l.srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutAbort)
	l.waitTrace("a relist", func() bool {
		m, ok := reg.Get("kubecache_reflector_relists_total", "reflector", "configmaps", "cause", "expired")
		return ok && m.Value >= 1
	})
	l.waitTrace("the relist's list", func() bool {
		m, ok := reg.Get("kubecache_reflector_lists_total", "reflector", "configmaps", "result", "ok")
		return ok && m.Value >= 2
	})
	l.waitConverged()
	d, ok := reg.Get("kubecache_reflector_list_duration_seconds", "reflector", "configmaps")
	require.True(t, ok)
	assert.GreaterOrEqual(t, d.Count, uint64(2), "the first list and the relist")
	w, ok := reg.Get("kubecache_reflector_watches_total", "reflector", "configmaps", "result", "error")
	require.True(t, ok, "the cut watch ended in an error (410 on resume)")
	assert.GreaterOrEqual(t, w.Value, 1.0)
	_, ok = reg.Get("kubecache_reflector_watch_duration_seconds", "reflector", "configmaps")
	assert.True(t, ok)
}

func TestRelistCauses(t *testing.T) {
	gone := fmt.Errorf("watch: %w", ErrWatchClosedEarly)
	for _, c := range []struct {
		from, next State
		err        error
		want       string
	}{
		{Listing{}, Watching{}, nil, ""},
		{Watching{}, Watching{}, nil, ""},
		{Watching{}, BackingOff{Then: Listing{}}, gone, "watch-closed-early"},
		{Listing{}, Listing{}, &StaleError{}, "stale"},
		{Listing{}, BackingOff{Then: Listing{}}, ErrNoResourceVersion, ""},
		{StreamingList{}, Listing{}, ErrNotStreaming, "streaming-abandoned"},
		{Watching{}, Listing{}, ErrInvalidResourceVersion, "error"},
	} {
		assert.Equal(t, c.want, relistCause(c.from, c.next, c.err), "%T -> %T: %v", c.from, c.next, c.err)
	}
}
