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
	"github.com/kubecache/kubecache/internal/growth"
	"github.com/kubecache/kubecache/internal/hostile"
)

// largeConfigMap returns a ConfigMap of n data keys, or of n labels, named
// by generateName so that one body creates any number of objects.
func largeConfigMap(n int, labels bool) []byte {
	var b bytes.Buffer
	if labels {
		b.WriteString(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"large-","labels":{`)
	} else {
		b.WriteString(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"large-"},"data":{`)
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

// Objects of tens of thousands of keys are created in time linear in
// their size: the object parser finds duplicate keys through a hash, not a
// scan per key (which took 26 s for 80,000 keys and over 3 minutes for
// 150,000 labels). Each is measured from 500 keys to 32,000; the long
// form measures labels from 2,500 to 160,000.
func TestLargeObjectsAreCreatedInLinearTime(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	defer http.DefaultClient.CloseIdleConnections()
	cases := []struct {
		small  int
		labels bool
	}{{500, false}, {500, true}}
	if *long {
		cases = append(cases, struct {
			small  int
			labels bool
		}{2_500, true})
	}
	for _, c := range cases {
		what := "a ConfigMap of data keys"
		if c.labels {
			what = "a ConfigMap of labels"
		}
		growth.Linear(t, what, c.small, func(n int) func() {
			body := largeConfigMap(n, c.labels)
			return func() { createAnswers(t, srv.URL()+cmCollection, body, http.StatusCreated) }
		})
	}
}

// createAnswers posts body to url and checks the answer's status code.
func createAnswers(t *testing.T, url string, body []byte, want int) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		t.Error(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("POST of %d bytes: %v", len(body), err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		t.Errorf("POST of %d bytes = %d %s, want %d", len(body), resp.StatusCode, msg, want)
	}
}

// A JSON patch of 18 copies, each doubling the document, stops at the copy
// budget (3 MiB, the real server's --json-patch-max-copy-bytes) with the
// real server's 422, dry run or not, and the server's heap stays within a
// few times the budget (it grew to 1.27 GB).
func TestJSONPatchCopyBombIsBounded(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	code, body := rawRequest(t, srv, "POST", cmCollection, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"copysrc"},"data":{"a":"`+strings.Repeat("x", 64<<10)+`"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	for _, query := range []string{"?dryRun=All", ""} {
		heap := hostile.StartHeapSampler()
		start := time.Now()
		code, body = rawRequest(t, srv, "PATCH", cmCollection+"/copysrc"+query, "application/json-patch+json", copyBomb(18))
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
		code, b := rawRequest(t, srv, req.method, req.path, req.contentType, body)
		_, growth := heap.Stop()
		assert.Equal(t, http.StatusRequestEntityTooLarge, code, "%s: %s", req.contentType, b)
		assert.Less(t, growth, uint64(64<<20), "%s: heap grew by %d MiB", req.contentType, growth>>20)
		t.Logf("alias bomb as %s: %d, heap growth %d MiB", req.contentType, code, growth>>20)
	}
	http.DefaultClient.CloseIdleConnections()
}

// An object past the store's bound (3 MiB of JSON, twice etcd's 1.5 MiB)
// is refused with the real server's 500 (etcd's "request is too large"),
// however it grew: merge patches of 1.1 MB each on a custom resource
// (twenty of them built 50 MB, and the history kept every version).
func TestObjectSizeIsBoundedAfterDecoding(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	code, body := rawRequest(t, srv, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", widgetCRD)
	require.Equal(t, http.StatusCreated, code, body)
	widgets := "/apis/example.com/v1/namespaces/default/widgets"
	require.Eventually(t, func() bool {
		code, _ := rawRequest(t, srv, "POST", widgets, "application/json", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
		return code == http.StatusCreated
	}, 10*time.Second, 20*time.Millisecond)
	heap := hostile.StartHeapSampler()
	var codes []int
	for i := range 4 {
		code, _ := rawRequest(t, srv, "PATCH", widgets+"/w", "application/merge-patch+json", fmt.Sprintf(`{"spec":{"f%d":"%s"}}`, i, strings.Repeat("x", 1_100_000)))
		codes = append(codes, code)
	}
	_, growth := heap.Stop()
	assert.Equal(t, []int{200, 200, 500, 500}, codes, "2.2 MB fit, 3.3 MB do not")
	_, body = rawRequest(t, srv, "PATCH", widgets+"/w", "application/merge-patch+json", `{"spec":{"more":"`+strings.Repeat("x", 1_000_000)+`"}}`)
	assert.Contains(t, body, `"message":"etcdserver: request is too large"`)
	assert.Less(t, growth, uint64(256<<20), "heap grew by %d MiB", growth>>20)
	t.Logf("4 merge patches of 1.1 MB: %v, heap growth %d MiB", codes, growth>>20)
	http.DefaultClient.CloseIdleConnections()
}

// rawRequest makes one request to srv with body as contentType and returns the
// status and the first 4 KiB of the answer (the refusals these tests
// look for are short Status objects).
func rawRequest(t *testing.T, srv *fakeapiserver.Server, method, path, contentType, body string) (int, string) {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, strings.NewReader(body))
	require.NoError(t, err)
	r.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}
