package promtext_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/metrics"
	"github.com/kubecache/kubecache/metrics/promtext"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

func TestWriteFormat(t *testing.T) {
	var r metrics.Registry
	r.Buckets = []float64{0.1, 1}
	r.Add("jobs_total", 2, "queue", `a"b\c`+"\n")
	r.Add("jobs_total", 1, "queue", "x")
	r.Add("jobs_total", -5, "queue", "x") // a counter never goes down
	r.Set("depth", 7)
	r.Observe("work_seconds", 0.05, "queue", "x")
	r.Observe("work_seconds", 0.5, "queue", "x")
	r.Observe("work_seconds", 3, "queue", "x")
	var b strings.Builder
	require.NoError(t, promtext.Write(&b, r.Snapshot()))
	assert.Equal(t, `# TYPE depth gauge
depth 7
# TYPE jobs_total counter
jobs_total{queue="a\"b\\c\n"} 2
jobs_total{queue="x"} 1
# TYPE work_seconds histogram
work_seconds_bucket{queue="x",le="0.1"} 1
work_seconds_bucket{queue="x",le="1"} 2
work_seconds_bucket{queue="x",le="+Inf"} 3
work_seconds_sum{queue="x"} 3.55
work_seconds_count{queue="x"} 3
`, b.String())
}

type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

// TestInformerMetricsOverHTTP runs an informer with a Registry against the
// fake server and scrapes the handler.
func TestInformerMetricsOverHTTP(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	create := func(name string) *ConfigMap {
		out := &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: name}}
		require.NoError(t, c.Post().Namespace("default").Resource("configmaps").Body(out).Do(ctx).Into(out))
		return out
	}
	create("a")

	reg := &metrics.Registry{}
	lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: "default"})
	require.NoError(t, err)
	inf, err := informer.New(lw, informer.Options[*ConfigMap]{Name: "configmaps", Metrics: reg})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	require.NoError(t, informer.WaitForCacheSync(ctx, inf))
	b := create("b")
	require.NoError(t, inf.WaitForFreshness(ctx, b.ResourceVersion))

	hs := httptest.NewServer(promtext.Handler(reg))
	defer hs.Close()
	resp, err := http.Get(hs.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, promtext.ContentType, resp.Header.Get("Content-Type"))
	assert.Contains(t, string(body), `kubecache_informer_events_total{informer="configmaps",type="add"} 2`)
	assert.Contains(t, string(body), `kubecache_informer_lists_total{informer="configmaps"} 1`)
	assert.Contains(t, string(body), `kubecache_informer_store_objects{informer="configmaps"} 2`)
}

// ExampleWrite shows the text a Registry's snapshot becomes.
func ExampleWrite() {
	var r metrics.Registry
	r.Add("kubecache_informer_events_total", 3, "informer", "pods", "type", "add")
	r.Set("kubecache_informer_store_objects", 3, "informer", "pods")
	_ = promtext.Write(os.Stdout, r.Snapshot())
	// Output:
	// # TYPE kubecache_informer_events_total counter
	// kubecache_informer_events_total{informer="pods",type="add"} 3
	// # TYPE kubecache_informer_store_objects gauge
	// kubecache_informer_store_objects{informer="pods"} 3
}
