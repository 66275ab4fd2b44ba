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

// aliasBomb is a ConfigMap in YAML whose one value of size bytes is
// aliased n times.
func aliasBomb(size, n int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  a: &x \"" + strings.Repeat("x", size) + "\"\n")
	for i := range n {
		fmt.Fprintf(&b, "  b%d: *x\n", i)
	}
	return b.String()
}

// A YAML body within the body limit whose anchor is aliased 200 times
// (1 MiB becomes 200 MiB of JSON; it was stored, 421 MB for 2 MiB) is
// refused with the body limit's 413 before it is expanded, by create
// and by server-side apply, with the heap bounded.
func TestYAMLAliasExpansionIsBoundedByTheBodyLimit(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	body := aliasBomb(1<<20, 200)
	require.Less(t, len(body), 3<<20)
	for _, req := range []struct{ method, path, contentType string }{
		{"POST", cmCollection, "application/yaml"},
		{"PATCH", cmCollection + "/bomb?fieldManager=m", "application/apply-patch+yaml"},
	} {
		heap := hostile.StartHeapSampler()
		r, err := http.NewRequestWithContext(t.Context(), req.method, srv.URL()+req.path, strings.NewReader(body))
		require.NoError(t, err)
		r.Header.Set("Content-Type", req.contentType)
		resp, err := http.DefaultClient.Do(r)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_, growth := heap.Stop()
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "%s: %s", req.contentType, b)
		assert.Less(t, growth, uint64(64<<20), "%s: heap grew by %d MiB", req.contentType, growth>>20)
		t.Logf("alias bomb as %s: %d, heap growth %d MiB", req.contentType, resp.StatusCode, growth>>20)
	}
	http.DefaultClient.CloseIdleConnections()
}

// An object past the store's bound (3 MiB of JSON, twice etcd's 1.5 MiB)
// is refused with the real server's 500 (etcd's "request is too large"),
// however it grew: merge patches of 1.1 MB each on a custom resource
// (twenty of them built 50 MB, and the history kept every version).
func TestObjectSizeIsBoundedAfterDecoding(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	send := func(method, path, contentType, body string) (int, string) {
		r, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, strings.NewReader(body))
		require.NoError(t, err)
		r.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(r)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return resp.StatusCode, string(b)
	}
	code, body := send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", widgetCRD)
	require.Equal(t, http.StatusCreated, code, body)
	widgets := "/apis/example.com/v1/namespaces/default/widgets"
	require.Eventually(t, func() bool {
		code, _ := send("POST", widgets, "application/json", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
		return code == http.StatusCreated
	}, 10*time.Second, 20*time.Millisecond)
	heap := hostile.StartHeapSampler()
	var codes []int
	for i := range 4 {
		code, _ := send("PATCH", widgets+"/w", "application/merge-patch+json", fmt.Sprintf(`{"spec":{"f%d":"%s"}}`, i, strings.Repeat("x", 1_100_000)))
		codes = append(codes, code)
	}
	_, growth := heap.Stop()
	assert.Equal(t, []int{200, 200, 500, 500}, codes, "2.2 MB fit, 3.3 MB do not")
	_, body = send("PATCH", widgets+"/w", "application/merge-patch+json", `{"spec":{"more":"`+strings.Repeat("x", 1_000_000)+`"}}`)
	assert.Contains(t, body, `"message":"etcdserver: request is too large"`)
	assert.Less(t, growth, uint64(256<<20), "heap grew by %d MiB", growth>>20)
	t.Logf("4 merge patches of 1.1 MB: %v, heap growth %d MiB", codes, growth>>20)
	http.DefaultClient.CloseIdleConnections()
}
