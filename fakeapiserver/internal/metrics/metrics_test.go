package metrics

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteUsesTheRealNamesAndLabels(t *testing.T) {
	m := New()
	m.Observe(Request{Verb: "POST", Version: "v1", Resource: "pods", Scope: "resource", Component: "apiserver", Code: 201, Duration: 3 * time.Millisecond})
	m.Observe(Request{Verb: "POST", Version: "v1", Resource: "pods", Scope: "resource", Component: "apiserver", Code: 201, Duration: 30 * time.Millisecond})
	m.Observe(Request{Verb: "POST", DryRun: "All", Version: "v1", Resource: "pods", Scope: "resource", Component: "apiserver", Code: 422})
	m.Observe(Request{Verb: "GET", Subresource: "/healthz", Code: 200})
	var sent WatchSizes
	for _, size := range []int{100, 1024, 1025, 200000} {
		sent.Add(size)
	}
	m.WatchEvents("apps", "v1", "deployments", &sent)
	assert.Zero(t, sent.Count(), "reported sizes are emptied")
	sent.Add(10)
	m.WatchEvents("apps", "v1", "deployments", &sent)
	m.Inflight("mutating", 1)
	var buf bytes.Buffer
	require.NoError(t, m.Write(&buf, []ObjectCount{{Resource: "pods", Count: 2}}))
	out := buf.String()
	for _, line := range []string{
		"# TYPE apiserver_request_total counter",
		`apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 2`,
		`apiserver_request_total{code="422",component="apiserver",dry_run="All",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 1`,
		`apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="GET",version=""} 1`,
		`apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1",le="0.005"} 1`,
		`apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1",le="0.05"} 2`,
		`apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1",le="+Inf"} 2`,
		`apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 2`,
		`apiserver_watch_events_total{group="apps",resource="deployments",version="v1"} 5`,
		"# TYPE apiserver_watch_events_sizes histogram",
		`apiserver_watch_events_sizes_bucket{group="apps",resource="deployments",version="v1",le="1024"} 3`,
		`apiserver_watch_events_sizes_bucket{group="apps",resource="deployments",version="v1",le="2048"} 4`,
		`apiserver_watch_events_sizes_bucket{group="apps",resource="deployments",version="v1",le="131072"} 4`,
		`apiserver_watch_events_sizes_bucket{group="apps",resource="deployments",version="v1",le="+Inf"} 5`,
		`apiserver_watch_events_sizes_sum{group="apps",resource="deployments",version="v1"} 202159`,
		`apiserver_watch_events_sizes_count{group="apps",resource="deployments",version="v1"} 5`,
		`apiserver_current_inflight_requests{request_kind="mutating"} 1`,
		`apiserver_resource_objects{group="",resource="pods"} 2`,
	} {
		assert.Contains(t, out, line+"\n")
	}
	// Every line is a comment or a sample.
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		assert.True(t, strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "apiserver_"), line)
	}
}

func TestRegistryIsSafeForConcurrentUse(t *testing.T) {
	m := New()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				m.Observe(Request{Verb: "GET", Resource: "pods", Code: 200})
				m.Inflight("readOnly", 1)
				m.Inflight("readOnly", -1)
			}
		}()
	}
	var buf bytes.Buffer
	require.NoError(t, m.Write(&buf, nil))
	wg.Wait()
	buf.Reset()
	require.NoError(t, m.Write(&buf, nil))
	assert.Contains(t, buf.String(), `verb="GET",version=""} 1600`)
}
