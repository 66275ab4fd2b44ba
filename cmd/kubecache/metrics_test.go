package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
)

func TestWatchServesMetrics(t *testing.T) {
	s, kubeconfig := fakeServer(t, fakeapiserver.Options{})
	load(t, s, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one, namespace: default}\n")
	b := start(t, "watch", "configmaps", "-n", "default", "--kubeconfig", kubeconfig, "--metrics-addr", "127.0.0.1:0")
	re := regexp.MustCompile(`metrics: (http://127\.0\.0\.1:\d+/metrics)`)
	b.stderr.waitFor(t, "the metrics address", func(s string) bool { return re.MatchString(s) })
	url := re.FindStringSubmatch(b.stderr.String())[1]
	b.stdout.waitForText(t, "default/one", 1)

	wants := []string{
		`# TYPE kubecache_informer_events_total counter`,
		`kubecache_informer_events_total{informer="configmaps",type="add"} 1`,
		`kubecache_informer_store_objects{informer="configmaps"} 1`,
		`# TYPE kubecache_reflector_list_duration_seconds histogram`,
		`kubecache_reflector_lists_total{reflector="configmaps",result="ok"} 1`,
		`kubecache_informer_handler_duration_seconds_count{informer="configmaps",handler="print"} 1`,
		`kubecache_informer_handler_latency_seconds_bucket{informer="configmaps",handler="print",le="+Inf"} 1`,
	}
	// The handler may print the object before the reflector has recorded
	// the list that delivered it, so scrape until every series is there.
	// The polling stays on the test goroutine, where scrapeMetrics's
	// require calls may stop the test.
	text := scrapeMetrics(t, url)
	for deadline := time.Now().Add(testTimeout); !containsAll(text, wants) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		text = scrapeMetrics(t, url)
	}
	for _, want := range wants {
		assert.Contains(t, text, want)
	}
	require.NoError(t, b.stop())
	_, err := http.Get(url)
	assert.Error(t, err, "the metrics server stops with the command")
}

// scrapeMetrics GETs the metrics page and checks its status and type.
func scrapeMetrics(t *testing.T, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", resp.Header.Get("Content-Type"))
	return string(body)
}

// containsAll reports whether text holds every one of wants.
func containsAll(text string, wants []string) bool {
	for _, want := range wants {
		if !strings.Contains(text, want) {
			return false
		}
	}
	return true
}
