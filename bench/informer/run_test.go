package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// miniReplay is a small stand-in for the harness's replay server: pods
// pods at rv0, then events modifications, one addition and one deletion,
// served with the same protocol (paged LIST, WATCH from a resourceVersion,
// streaming list, bookmarks, /replay/info and /replay/stats).
type miniReplay struct {
	pods, events int
	rv0          int
	// frames[j] is event j's object JSON and type; its rv is rv0+1+j.
	frames []struct {
		typ string
		obj []byte
	}
}

func pod(i, rv int, extra string) []byte {
	return fmt.Appendf(nil, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p-%03d","namespace":"ns-%d","uid":"u-%d","resourceVersion":"%d",`+
		`"labels":{"app":"a"},"managedFields":[{"manager":"m","time":"2025-01-01T00:00:00Z"}]},`+
		`"spec":{"nodeName":"n-%d","containers":[{"name":"c","image":"img:1"}]},"status":{"phase":"Running"%s}}`, i, i%3, i, rv, i%2, extra)
}

func newMiniReplay(pods, modified int) *miniReplay {
	m := &miniReplay{pods: pods, rv0: 1000}
	for j := range modified {
		m.frames = append(m.frames, struct {
			typ string
			obj []byte
		}{"MODIFIED", pod(j%pods, m.rv0+1+j, `,"conditions":[{"type":"Ready","status":"True"}]`)})
	}
	m.frames = append(m.frames, struct {
		typ string
		obj []byte
	}{"ADDED", pod(pods, m.rv0+1+len(m.frames), "")})
	m.frames = append(m.frames, struct {
		typ string
		obj []byte
	}{"DELETED", pod(0, m.rv0+1+len(m.frames), "")})
	m.events = len(m.frames)
	return m
}

// state returns the objects live at rv, in key order.
func (m *miniReplay) state(rv int) [][]byte {
	objs := map[int][]byte{}
	for i := range m.pods {
		objs[i] = pod(i, m.rv0, "")
	}
	for j, f := range m.frames {
		if m.rv0+1+j > rv {
			break
		}
		var p struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		_ = json.Unmarshal(f.obj, &p)
		i, _ := strconv.Atoi(strings.TrimPrefix(p.Metadata.Name, "p-"))
		if f.typ == "DELETED" {
			delete(objs, i)
		} else {
			objs[i] = f.obj
		}
	}
	var out [][]byte
	for i := range m.pods + 1 {
		if o, ok := objs[i]; ok {
			out = append(out, o)
		}
	}
	return out
}

func (m *miniReplay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	final := m.rv0 + m.events
	switch {
	case r.URL.Path == "/replay/info":
		fmt.Fprintf(w, `{"pods":%d,"events":%d,"added":1,"modified":%d,"deleted":1,"live_after":%d,"rv0":"%d","final_rv":"%d"}`,
			m.pods, m.events, m.events-2, m.pods, m.rv0, final)
	case r.URL.Path == "/replay/stats":
		fmt.Fprint(w, `{"stats":{"lists":1}}`)
	case r.URL.Path == "/api/v1/pods" && q.Get("watch") == "true":
		m.watch(w, r)
	case r.URL.Path == "/api/v1/pods":
		rv, start := m.rv0, 0
		if v, err := strconv.Atoi(q.Get("resourceVersion")); err == nil && v > m.rv0 {
			rv = v
		}
		if c := q.Get("continue"); c != "" {
			// The token carries the list's resourceVersion and offset.
			_, _ = fmt.Sscanf(c, "%d-%d", &rv, &start)
		}
		objs := m.state(rv)
		end := min(start+7, len(objs)) // small pages, so paging is exercised
		cont := ""
		if end < len(objs) {
			cont = fmt.Sprintf("%d-%d", rv, end)
		}
		fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d","continue":%q},"items":[%s]}`,
			rv, cont, bytes.Join(objs[start:end], []byte(",")))
	default:
		http.NotFound(w, r)
	}
}

func (m *miniReplay) watch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	from, _ := strconv.Atoi(q.Get("resourceVersion"))
	if q.Get("sendInitialEvents") == "true" {
		from = max(from, m.rv0)
		for _, o := range m.state(from) {
			fmt.Fprintf(w, `{"type":"ADDED","object":%s}`+"\n", o)
		}
		fmt.Fprintf(w, `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n", from)
	}
	for j, f := range m.frames {
		if m.rv0+1+j > from {
			fmt.Fprintf(w, `{"type":%q,"object":%s}`+"\n", f.typ, f.obj)
		}
	}
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func runOnce(t *testing.T, url string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"-server", url, "-timeout", "30s"}, args...), &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s\nstdout: %s", stderr.String(), stdout.String())
	var res result
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res), "stdout: %s", stdout.String())
	return res
}

func TestRunEveryMode(t *testing.T) {
	srv := httptest.NewServer(newMiniReplay(40, 25))
	defer srv.Close()
	for _, args := range [][]string{
		{"-mode", "typed"},
		{"-mode", "unstructured"},
		{"-mode", "metadata", "-strip-managed-fields"},
		{"-mode", "typed", "-watchlist"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			res := runOnce(t, srv.URL, args...)
			assert.True(t, res.OK, res.Error)
			assert.Equal(t, counts{Initial: 40, Adds: 1, Updates: 25, Deletes: 1}, res.Counts)
			assert.Equal(t, 40, res.LiveObjects)
			assert.Positive(t, res.HeapSyncBytesPerObj)
			assert.Positive(t, res.EventsPerSec)
		})
	}
}

// A forced relist reads the latest state, reuses every unchanged object
// and reports the heap at its peak.
func TestRunRelist(t *testing.T) {
	srv := httptest.NewServer(newMiniReplay(40, 25))
	defer srv.Close()
	res := runOnce(t, srv.URL, "-mode", "typed", "-relist")
	assert.True(t, res.OK, res.Error)
	assert.Equal(t, 40, res.RelistObjects)
	assert.Equal(t, 40, res.RelistReused, "every object is unchanged and must be reused, not decoded again")
	assert.Positive(t, res.RelistPeakHeapRatio)
}

func TestRunUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"-mode", "typed"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "-server is required")
	stderr.Reset()
	assert.Equal(t, 2, run(context.Background(), []string{"-server", "http://x", "-mode", "dynamic"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), `-mode "dynamic"`)
}
