package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// webURL waits for the command to print its web view's address.
func webURL(t *testing.T, out *syncBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
	out.waitFor(t, "the web view's address", func(s string) bool { return re.MatchString(s) })
	return re.FindString(out.String())
}

// webPost presses a control of the page.
func webPost(t *testing.T, ctx context.Context, url, body string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-Kubecache-Webview", "1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// firstFrame reads the first frame of the page's stream.
func firstFrame(t *testing.T, ctx context.Context, url string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"events", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var f map[string]any
			require.NoError(t, json.Unmarshal([]byte(data), &f))
			return f
		}
	}
	t.Fatalf("no frame: %v", sc.Err())
	return nil
}

func TestDemoWeb(t *testing.T) {
	b := start(t, "demo", "--web", "--faults-every", "0", "--rate", "5", "--objects", "6")
	url := webURL(t, b.stdout)
	b.stdout.waitForText(t, "synced: 6 objects", 1)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	resp, err := http.Get(url)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), "Reflector state machine")

	f := firstFrame(t, ctx, url)
	controls, _ := f["controls"].(map[string]any)
	require.NotNil(t, controls, "the demo's page has controls: %v", f)
	var ids []string
	for _, c := range controls["faults"].([]any) {
		ids = append(ids, c.(map[string]any)["id"].(string))
	}
	assert.Equal(t, []string{"cut", "compact", "throttle", "restart"}, ids)

	assert.Equal(t, http.StatusOK, webPost(t, ctx, url+"api/fault/compact", ""))
	b.stdout.waitForText(t, "compact the history (from the web page)", 1)
	b.stdout.waitForText(t, "410 Expired", 1)
	b.stdout.waitForText(t, "— relist", 1)
	assert.Equal(t, http.StatusOK, webPost(t, ctx, url+"api/slider/rate", `{"value": 0}`))
	assert.Equal(t, http.StatusOK, webPost(t, ctx, url+"api/slider/slow", `{"value": 20}`))
	assert.Equal(t, http.StatusBadRequest, webPost(t, ctx, url+"api/slider/rate", `{"value": 5000}`))
	require.NoError(t, b.stop())
}

func TestWatchWeb(t *testing.T) {
	s, kubeconfig := fakeServer(t, fakeapiserver.Options{})
	load(t, s, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one, namespace: default}\n")
	b := start(t, "watch", "configmaps", "-n", "default", "--kubeconfig", kubeconfig, "--web", "127.0.0.1:0")
	url := webURL(t, b.stderr)
	b.stdout.waitForText(t, "default/one", 1)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	f := firstFrame(t, ctx, url)
	assert.Nil(t, f["controls"], "a view of a real server has no fault buttons")
	assert.Equal(t, "configmaps", f["name"])
	assert.Equal(t, http.StatusNotFound, webPost(t, ctx, url+"api/fault/cut", ""))
	require.NoError(t, b.stop())
}

func TestWebFlags(t *testing.T) {
	r := runCommand(t, "demo", "--web", "--web-addr", "256.0.0.1:1", "--duration", "1s")
	require.Error(t, r.err)
	assert.Contains(t, r.stderr, "web view: listen on 256.0.0.1:1")
}
