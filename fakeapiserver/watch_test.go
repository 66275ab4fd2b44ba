package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

func rvOf(t *testing.T, obj map[string]any) string {
	t.Helper()
	return obj["metadata"].(map[string]any)["resourceVersion"].(string)
}

func TestWatchDefaultsToStreamingList(t *testing.T) {
	s, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	c.mustCreate("/api/v1/namespaces/kube-system/configmaps", `{"metadata":{"name":"other"}}`) // moves the RV

	w := c.watch(cmPath + "?watch=1&allowWatchBookmarks=true")
	e1, e2 := w.next(), w.next()
	assert.Equal(t, "ADDED", e1.Type)
	assert.Equal(t, "a", e1.meta(t).Name, "initial events in key order")
	assert.Equal(t, "b", e2.meta(t).Name)
	assert.Contains(t, string(e1.Object), `"kind":"ConfigMap","apiVersion":"v1"`, "watch objects carry kind")
	bm := w.next()
	assert.Equal(t, "BOOKMARK", bm.Type)
	assert.Equal(t, strconv.FormatInt(s.ResourceVersion(), 10), bm.meta(t).ResourceVersion, "the end bookmark carries the current revision")
	assert.Equal(t, map[string]string{watch.InitialEventsEndAnnotation: "true"}, bm.meta(t).Annotations)
	assert.Equal(t, fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}}}`, s.ResourceVersion()), string(bm.Object))

	c.mustCreate(cmPath, `{"metadata":{"name":"c"}}`)
	e := w.next()
	assert.Equal(t, "ADDED", e.Type)
	assert.Equal(t, "c", e.meta(t).Name)

	// Without allowWatchBookmarks: the ADDED events, no marker.
	w2 := c.watch(cmPath + "?watch=true&resourceVersion=0")
	names := []string{w2.next().meta(t).Name, w2.next().meta(t).Name, w2.next().meta(t).Name}
	assert.Equal(t, []string{"a", "b", "c"}, names)
	c.mustCreate(cmPath, `{"metadata":{"name":"d"}}`)
	assert.Equal(t, "d", w2.next().meta(t).Name, "no bookmark before the next event")
}

func TestWatchFromResourceVersion(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	r := c.do(http.MethodPut, cmPath+"/a", `{"metadata":{"name":"a"},"data":{"x":"1"}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	r = c.do(http.MethodDelete, cmPath+"/b", "")
	require.Equal(t, http.StatusOK, r.code)

	w := c.watch(cmPath + "?watch=1&resourceVersion=" + rvOf(t, a))
	e := w.next()
	assert.Equal(t, "ADDED", e.Type)
	assert.Equal(t, "b", e.meta(t).Name)
	e = w.next()
	assert.Equal(t, "MODIFIED", e.Type)
	assert.Equal(t, "a", e.meta(t).Name)
	e = w.next()
	assert.Equal(t, "DELETED", e.Type)
	assert.Equal(t, "b", e.meta(t).Name)
	prev, _ := strconv.Atoi(rvOf(t, a))
	got, _ := strconv.Atoi(e.meta(t).ResourceVersion)
	assert.Greater(t, got, prev+2, "DELETED carries the delete's resourceVersion")
}

func TestWatchTooOldIsErrorEvent(t *testing.T) {
	s, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	s.CompactNow()
	w := c.watch(cmPath + "?watch=1&resourceVersion=" + rvOf(t, a))
	e := w.next()
	require.Equal(t, "ERROR", e.Type)
	var st meta.Status
	require.NoError(t, json.Unmarshal(e.Object, &st))
	assert.True(t, st.IsGone())
	assert.Equal(t, meta.ReasonExpired, st.Reason)
	assert.Contains(t, st.Message, "too old resource version: "+rvOf(t, a))
	assert.NoError(t, w.end(), "the stream ends cleanly after the ERROR event")

	ev := c.mustCreate("/api/v1/namespaces/default/events", `{"metadata":{"name":"e"},"involvedObject":{}}`)
	c.mustCreate("/api/v1/namespaces/default/events", `{"metadata":{"name":"f"},"involvedObject":{}}`)
	s.CompactNow()
	w = c.watch("/api/v1/namespaces/default/events?watch=1&resourceVersion=" + rvOf(t, ev))
	e = w.next()
	require.NoError(t, json.Unmarshal(e.Object, &st))
	assert.Equal(t, "The resourceVersion for the provided watch is too old.", st.Message)
}

func TestWatchSelectorTransitions(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a","labels":{"app":"x"}}}`)
	w := c.watch(cmPath + "?watch=1&labelSelector=app%3Dy&resourceVersion=" + rvOf(t, a))
	r := c.do(http.MethodPatch, cmPath+"/a", `{"metadata":{"labels":{"app":"y"}}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	e := w.next()
	assert.Equal(t, "ADDED", e.Type, "starts matching: ADDED")
	assert.Equal(t, "y", e.meta(t).Labels["app"])
	r = c.do(http.MethodPatch, cmPath+"/a", `{"metadata":{"labels":{"app":"z"}}}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code)
	e = w.next()
	assert.Equal(t, "DELETED", e.Type, "stops matching: DELETED")
	assert.Equal(t, "y", e.meta(t).Labels["app"], "with the previous state")
	assert.Equal(t, rvOf(t, r.object(t)), e.meta(t).ResourceVersion, "and the event's resourceVersion")
}

func TestWatchValidation(t *testing.T) {
	_, c := newTestServer(t, Options{})
	cases := []struct{ q, msg string }{
		{"watch=1&sendInitialEvents=true", "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"watch=1&resourceVersion=5&resourceVersionMatch=NotOlderThan", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
		{"watch=1&sendInitialEvents=true&resourceVersionMatch=Exact", `[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`},
	}
	for _, tc := range cases {
		r := c.get(cmPath + "?" + tc.q)
		require.Equal(t, http.StatusUnprocessableEntity, r.code, tc.q)
		assert.Equal(t, `ListOptions.meta.k8s.io "" is invalid: `+tc.msg, r.status(t).Message)
	}
	r := c.get(cmPath + "?watch=1&resourceVersion=abc")
	assert.Equal(t, http.StatusBadRequest, r.code, "a real server's 500; the fake server never answers 500 (docs/fidelity.md)")
	assert.Equal(t, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`, r.status(t).Message)
	r = c.get(cmPath + "?watch=0")
	assert.Equal(t, "ConfigMapList", r.object(t)["kind"], "watch=0 is a list")
}

func TestWatchTimeoutAndBookmarksWithFakeClock(t *testing.T) {
	clock := NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s, c := newTestServer(t, Options{Clock: clock, BookmarkInterval: time.Minute, CompactionInterval: -1})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	w := c.watch(cmPath + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=" + rvOf(t, a))
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 1))
	require.NoError(t, clock.WaitForTimers(testContext(t), 3)) // deadline, bookmark, last bookmark

	// Idle: a bookmark tick sends nothing.
	clock.Step(time.Minute)
	c.mustCreate("/api/v1/namespaces/kube-system/configmaps", `{"metadata":{"name":"elsewhere"}}`)
	require.NoError(t, clock.WaitForTimers(testContext(t), 3))
	clock.Step(time.Minute)
	bm := w.next()
	assert.Equal(t, "BOOKMARK", bm.Type)
	assert.Equal(t, strconv.FormatInt(s.ResourceVersion(), 10), bm.meta(t).ResourceVersion)
	assert.Equal(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"`+bm.meta(t).ResourceVersion+`"}}`, string(bm.Object))

	// Two seconds before the deadline: a last bookmark if the RV moved.
	c.mustCreate("/api/v1/namespaces/kube-system/configmaps", `{"metadata":{"name":"elsewhere2"}}`)
	clock.Step(298*time.Second - 2*time.Minute)
	assert.Equal(t, "BOOKMARK", w.next().Type)
	clock.Step(2 * time.Second)
	assert.NoError(t, w.end(), "the body ends at timeoutSeconds")
}

func TestSlowWatcherIsDropped(t *testing.T) {
	s, c := newTestServer(t, Options{WatchQueueLength: 5})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	w := c.watch(cmPath + "?watch=1&resourceVersion=" + rvOf(t, a))
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 1))
	require.Equal(t, 1, s.StallWatches(request.Match{Resource: "configmaps"}))
	for i := range 10 {
		c.mustCreate(cmPath, fmt.Sprintf(`{"metadata":{"name":"x%d"}}`, i))
	}
	// The watcher is gone from the fan-out; its stream ends.
	for {
		if _, ok := <-w.events; !ok {
			break
		}
	}
	assert.Equal(t, 0, s.Watchers("configmaps"))
}

func TestWatchLegacyPathAndSingleObject(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	w := c.watch("/api/v1/watch/namespaces/default/configmaps/a?resourceVersion=" + rvOf(t, a))
	c.do(http.MethodPatch, cmPath+"/b", `{"data":{"x":"1"}}`, "Content-Type", "application/merge-patch+json")
	c.do(http.MethodPatch, cmPath+"/a", `{"data":{"x":"1"}}`, "Content-Type", "application/merge-patch+json")
	e := w.next()
	assert.Equal(t, "MODIFIED", e.Type)
	assert.Equal(t, "a", e.meta(t).Name, "the legacy single-object watch filters by name")

	r := c.get("/api/v1/watch/namespaces/default/configmaps/a?fieldSelector=metadata.name%3Db")
	assert.Equal(t, http.StatusBadRequest, r.code)
	assert.Equal(t, "fieldSelector metadata.name doesn't match requested name", r.status(t).Message)
}

func TestWatchCutModes(t *testing.T) {
	s, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	for _, mode := range []CutMode{CutAbort, CutMidFrame, CutClean} {
		req, err := http.NewRequest(http.MethodGet, c.base+cmPath+"?watch=1&resourceVersion="+rvOf(t, a), nil)
		require.NoError(t, err)
		resp, err := c.http.Do(req)
		require.NoError(t, err)
		require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 1))
		require.Equal(t, 1, s.CutWatches(request.Match{Resource: "configmaps"}, mode))
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch mode {
		case CutClean:
			assert.NoError(t, err)
			assert.Empty(t, body)
		case CutMidFrame:
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			assert.Contains(t, string(body), `{"type":"BOOKMARK","object":{`)
		default:
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		}
		require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 0))
		waitNoWatchers(t, s)
	}
}

func waitNoWatchers(t *testing.T, s *Server) {
	t.Helper()
	ctx := testContext(t)
	for {
		n, changed := s.store.CountWatchers(func(*storage.Watcher) bool { return true })
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("watchers still registered")
		}
	}
}
