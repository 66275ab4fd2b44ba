package rest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

func TestList(t *testing.T) {
	const body = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10245","continue":"tok","remainingItemCount":753},
"items":[{"metadata":{"name":"a","namespace":"ns"}},{"metadata":{"name":"b","namespace":"ns"},"spec":{"nodeName":"n"}}]}`
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "500", r.URL.Query().Get("limit"))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	var names []string
	tm, lm, err := c.Get().Namespace("ns").Resource("pods").Param("limit", "500").List(t.Context(), func(item []byte) error {
		p, err := decodeTestPod(item)
		names = append(names, p.Name)
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names)
	assert.Equal(t, "PodList", tm.Kind)
	assert.Equal(t, "v1", tm.APIVersion)
	assert.Equal(t, "10245", lm.ResourceVersion)
	assert.Equal(t, "tok", lm.Continue)
	require.NotNil(t, lm.RemainingItemCount)
	assert.Equal(t, int64(753), *lm.RemainingItemCount)
}

func TestListErrors(t *testing.T) {
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/gone":
			w.WriteHeader(http.StatusGone)
			io.WriteString(w, statusBody(410, "Expired", "The provided continue parameter is too old", ""))
		case "/api/v1/cut":
			io.WriteString(w, `{"kind":"PodList","items":[{"metadata":{"name":"a"}},{"metadata":`)
		case "/api/v1/notalist":
			io.WriteString(w, `[1,2,3]`)
		default:
			io.WriteString(w, `{"items":[{},{},{}]}`)
		}
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	none := func([]byte) error { return nil }

	_, _, err := c.Get().Resource("gone").List(t.Context(), none)
	assert.True(t, IsGone(err), "got %v", err)

	n := 0
	_, _, err = c.Get().Resource("cut").List(t.Context(), func([]byte) error { n++; return nil })
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, 1, n)

	_, _, err = c.Get().Resource("notalist").List(t.Context(), none)
	assert.ErrorContains(t, err, "not an object")

	stop := errors.New("enough")
	n = 0
	_, _, err = c.Get().Resource("three").List(t.Context(), func([]byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 2, n)
}

// TestListStreams checks that items reach the callback before the body has
// been fully sent: the server waits for the client to see the first item
// before it writes the rest.
func TestListStreams(t *testing.T) {
	first := make(chan struct{})
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},`)
		// Padding so the first item is not held in a transport buffer.
		io.WriteString(w, strings.Repeat(" ", 64<<10))
		w.(http.Flusher).Flush()
		select {
		case <-first:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, `{"metadata":{"name":"b"}}],"metadata":{"resourceVersion":"9"}}`)
	}))
	c := newTestClient(t, &Config{Host: srv.URL})
	var names []string
	_, lm, err := c.Get().Resource("pods").List(t.Context(), func(item []byte) error {
		p, err := decodeTestPod(item)
		if p.Name == "a" {
			close(first)
		}
		names = append(names, p.Name)
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names)
	assert.Equal(t, "9", lm.ResourceVersion, "metadata after items")
}

func decodeTestPod(b []byte) (*testPod, error) {
	p := new(testPod)
	err := jsonUnmarshal(b, p)
	return p, err
}

func TestListAs(t *testing.T) {
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/namespaces/ns/pods":
			io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},
"items":[{"metadata":{"name":"a","namespace":"ns"},"spec":{"nodeName":"n1"}},{"metadata":{"name":"b","namespace":"ns"}}]}`)
		case "/apis/example.com/v1/widgets":
			io.WriteString(w, `{"kind":"WidgetList","apiVersion":"example.com/v1","metadata":{"resourceVersion":"6","continue":""},
"items":[{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w"},"spec":{"size":3}}]}`)
		case "/api/v1/bad":
			io.WriteString(w, `{"kind":"PodList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":7}}]}`)
		case "/api/v1/empty":
			io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":null}`)
		}
	}))
	c := newTestClient(t, &Config{Host: srv.URL})

	pods, err := ListAs[*testPod](t.Context(), c.Get().Namespace("ns").Resource("pods"))
	require.NoError(t, err)
	require.Len(t, pods.Items, 2)
	assert.Equal(t, "5", pods.ResourceVersion)
	assert.Equal(t, "n1", pods.Items[0].Spec.NodeName)
	assert.Equal(t, "Pod", pods.Items[1].Kind, "kind filled from the list")
	assert.Equal(t, "v1", pods.Items[1].APIVersion)

	widgets, err := ListAs[*meta.Unstructured](t.Context(), c.Get().Group("example.com").Version("v1").Resource("widgets"))
	require.NoError(t, err)
	require.Len(t, widgets.Items, 1)
	assert.Equal(t, "Widget", widgets.Items[0].Kind)
	assert.Equal(t, "w", widgets.Items[0].Name)

	_, err = ListAs[*testPod](t.Context(), c.Get().Resource("bad"))
	assert.ErrorContains(t, err, "items[1]")

	empty, err := ListAs[*testPod](t.Context(), c.Get().Resource("empty"))
	require.NoError(t, err)
	assert.Empty(t, empty.Items)
	assert.Equal(t, "1", empty.ResourceVersion)
}

// BenchmarkList streams a 50,000-pod list (about 1 KB per pod) over
// loopback HTTP and decodes each item's metadata: the cost of the first
// LIST of a large cluster. Memory per operation stays small because the
// body is never held whole.
func BenchmarkList(b *testing.B) {
	const n = 50000
	body := benchPodList(n, func(body []byte, i int, pad string) []byte {
		return fmt.Appendf(body, `{"metadata":{"name":"pod-%d","namespace":"ns-%d","resourceVersion":"%d","labels":{"app":"web"}},"spec":{"nodeName":"node-%d","image":"%s"}}`, i, i%50, i, i%100, pad)
	})
	srv := newPlainServer(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	c := newTestClient(b, &Config{Host: srv.URL})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		count := 0
		_, lm, err := c.Get().Resource("pods").List(b.Context(), func(item []byte) error {
			var m struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			count++
			return jsonUnmarshal(item, &m)
		})
		if err != nil || count != n || lm.ResourceVersion != "123" {
			b.Fatal(err, count)
		}
	}
}

// BenchmarkListScanOnly is BenchmarkList without decoding the items: the
// cost of the transport and the list scanner alone.
func BenchmarkListScanOnly(b *testing.B) {
	const n = 50000
	body := benchPodList(n, func(body []byte, i int, pad string) []byte {
		return fmt.Appendf(body, `{"metadata":{"name":"pod-%d","namespace":"ns-%d","resourceVersion":"%d"},"spec":{"image":"%s"}}`, i, i%50, i, pad)
	})
	srv := newPlainServer(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	c := newTestClient(b, &Config{Host: srv.URL})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		count := 0
		if _, _, err := c.Get().Resource("pods").List(b.Context(), func([]byte) error { count++; return nil }); err != nil || count != n {
			b.Fatal(err, count)
		}
	}
}

// benchPodList returns a PodList at resourceVersion 123 of n items, each
// appended by item with its index and 800 bytes of padding.
func benchPodList(n int, item func(body []byte, i int, pad string) []byte) []byte {
	body := []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"123"},"items":[`)
	pad := strings.Repeat("x", 800)
	for i := range n {
		if i > 0 {
			body = append(body, ',')
		}
		body = item(body, i, pad)
	}
	return append(body, `]}`...)
}
