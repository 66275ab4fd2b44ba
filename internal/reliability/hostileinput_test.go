package reliability_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/hostile"
)

// largeConfigMap returns a ConfigMap of n data keys, or of n labels.
func largeConfigMap(name string, n int, labels bool) []byte {
	var b bytes.Buffer
	if labels {
		fmt.Fprintf(&b, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{`, name)
	} else {
		fmt.Fprintf(&b, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{`, name)
	}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":"v"`, i)
	}
	b.WriteString("}}")
	if labels {
		b.WriteString("}")
	}
	return b.Bytes()
}

// Objects with tens of thousands of keys are created in time linear in
// their size: the object parser finds duplicate keys through a hash, not a
// scan per key (which took 26 s for 80,000 keys and over 3 minutes for
// 150,000 labels). The long form adds 150,000 labels.
func TestLargeObjectsAreCreatedInBoundedTime(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	cases := []struct {
		n      int
		labels bool
		bound  time.Duration
	}{{80_000, false, 20 * time.Second}, {30_000, true, 20 * time.Second}}
	if *long {
		cases = append(cases, struct {
			n      int
			labels bool
			bound  time.Duration
		}{150_000, true, 60 * time.Second})
	}
	for _, c := range cases {
		what := fmt.Sprintf("%d data keys", c.n)
		if c.labels {
			what = fmt.Sprintf("%d labels", c.n)
		}
		body := largeConfigMap(fmt.Sprintf("large-%d-%t", c.n, c.labels), c.n, c.labels)
		ctx, cancel := context.WithTimeout(t.Context(), 2*c.bound)
		req, err := http.NewRequestWithContext(ctx, "POST", srv.URL()+cmCollection, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		took := time.Since(start)
		cancel()
		require.NoError(t, err, what)
		resp.Body.Close()
		assert.Equal(t, http.StatusCreated, resp.StatusCode, what)
		assert.Less(t, took, c.bound, "%s (%d KiB) took %v", what, len(body)>>10, took)
		t.Logf("a ConfigMap of %s (%d KiB) created in %v", what, len(body)>>10, took)
	}
	http.DefaultClient.CloseIdleConnections()
}

// A JSON patch of 18 copies, each doubling the document, stops at the copy
// budget (3 MiB, the real server's --json-patch-max-copy-bytes) with the
// real server's 422, dry run or not, and the server's heap stays within a
// few times the budget (it grew to 1.27 GB).
func TestJSONPatchCopyBombIsBounded(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	post := func(method, path, contentType, body string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post("POST", cmCollection, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"copysrc"},"data":{"a":"`+strings.Repeat("x", 64<<10)+`"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	for _, query := range []string{"?dryRun=All", ""} {
		heap := hostile.StartHeapSampler()
		start := time.Now()
		code, body = post("PATCH", cmCollection+"/copysrc"+query, "application/json-patch+json", copyBomb(18))
		took := time.Since(start)
		_, growth := heap.Stop()
		assert.Equal(t, http.StatusUnprocessableEntity, code, body)
		assert.Contains(t, body, "the server rejected our request due to an error in our request")
		assert.Less(t, growth, uint64(64<<20), "heap grew by %d MiB", growth>>20)
		t.Logf("copy bomb%s: %d in %v, heap growth %d KiB", query, code, took, growth>>10)
	}
	http.DefaultClient.CloseIdleConnections()
}
