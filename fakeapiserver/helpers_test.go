package fakeapiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/meta"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testClient talks to a server over loopback with its own transport, so
// no connection outlives the test.
type testClient struct {
	t    *testing.T
	base string
	http *http.Client
}

func newTestServer(t *testing.T, opts Options) (*Server, *testClient) {
	t.Helper()
	s := NewForTest(t, opts)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return s, &testClient{t: t, base: s.URL(), http: &http.Client{Transport: tr}}
}

type response struct {
	code   int
	header http.Header
	body   []byte
}

func (r response) status(t *testing.T) meta.Status {
	t.Helper()
	var st meta.Status
	require.NoError(t, json.Unmarshal(r.body, &st), "body %s", r.body)
	return st
}

func (r response) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body %s", r.body)
	return m
}

// do sends a request; headers alternate name, value.
func (c *testClient) do(method, path string, body string, headers ...string) response {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	require.NoError(c.t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return response{code: resp.StatusCode, header: resp.Header, body: data}
}

func (c *testClient) get(path string, headers ...string) response {
	c.t.Helper()
	return c.do(http.MethodGet, path, "", headers...)
}

func (c *testClient) post(path, body string, headers ...string) response {
	c.t.Helper()
	return c.do(http.MethodPost, path, body, headers...)
}

func (c *testClient) mustCreate(path, body string) map[string]any {
	c.t.Helper()
	r := c.post(path, body)
	require.Equal(c.t, http.StatusCreated, r.code, "POST %s: %s", path, r.body)
	return r.object(c.t)
}

// event is one decoded watch event.
type event struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

func (e event) meta(t *testing.T) meta.ObjectMeta {
	t.Helper()
	var o struct {
		Metadata meta.ObjectMeta `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(e.Object, &o))
	return o.Metadata
}

// clientWatch is an open watch read line by line.
type clientWatch struct {
	t      *testing.T
	resp   *http.Response
	events chan event
	done   chan error
	cancel context.CancelFunc
}

func (c *testClient) watch(path string, headers ...string) *clientWatch {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	require.NoError(c.t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	require.NoError(c.t, err)
	require.Equal(c.t, http.StatusOK, resp.StatusCode)
	ws := &clientWatch{t: c.t, resp: resp, events: make(chan event, 10000), done: make(chan error, 1), cancel: cancel}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				ws.done <- err
				close(ws.events)
				return
			}
			ws.events <- e
		}
		ws.done <- sc.Err()
		close(ws.events)
	}()
	c.t.Cleanup(ws.close)
	return ws
}

func (ws *clientWatch) close() {
	ws.cancel()
	ws.resp.Body.Close()
	for range ws.events {
	}
}

// next returns the next event, failing the test after 10 s.
func (ws *clientWatch) next() event {
	ws.t.Helper()
	select {
	case e, ok := <-ws.events:
		require.True(ws.t, ok, "watch ended early: %v", drainErr(ws.done))
		return e
	case <-time.After(10 * time.Second):
		ws.t.Fatal("no watch event within 10s")
	}
	return event{}
}

// end waits for the stream to end and returns how it ended.
func (ws *clientWatch) end() error {
	ws.t.Helper()
	for {
		select {
		case e, ok := <-ws.events:
			if !ok {
				return drainErr(ws.done)
			}
			ws.t.Fatalf("unexpected event %s %s", e.Type, e.Object)
		case <-time.After(10 * time.Second):
			ws.t.Fatal("watch did not end within 10s")
		}
	}
}

func drainErr(ch chan error) error {
	select {
	case err := <-ch:
		return err
	default:
		return nil
	}
}

func compact(b []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// Minimal bodies the real server accepts: a Deployment needs a selector
// matching its template's labels and a container, a Pod a container.
const (
	validDeploySpec = `{"replicas":1,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}`
	validPodSpec    = `{"containers":[{"name":"c","image":"nginx"}]}`
)
