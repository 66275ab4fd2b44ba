package fakeapiserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

func TestFailNext(t *testing.T) {
	s, c := newTestServer(t, Options{})
	s.FailNext(FailRule{Match: request.Match{Verb: "list", Resource: "configmaps"}, Count: 2, Code: 429, RetryAfterSeconds: 3})
	for range 2 {
		r := c.get(cmPath)
		require.Equal(t, http.StatusTooManyRequests, r.code)
		assert.Equal(t, "3", r.header.Get("Retry-After"))
		st := r.status(t)
		assert.True(t, st.IsTooManyRequests())
		assert.Equal(t, 3, st.RetryAfterSeconds())
	}
	assert.Equal(t, http.StatusOK, c.get(cmPath).code, "the rule is used up")

	s.FailNext(FailRule{Match: request.Match{Resource: "pods"}, Code: 429, PlainText: true, RetryAfterSeconds: 1})
	assert.Equal(t, http.StatusOK, c.get(cmPath).code, "other resources pass")
	r := c.get("/api/v1/pods")
	assert.Equal(t, http.StatusTooManyRequests, r.code)
	assert.Equal(t, "Too many requests, please try again later.\n", string(r.body))

	for _, code := range []int{500, 503, 504} {
		s.FailNext(FailRule{Match: request.Match{Verb: "watch"}, Code: code})
		r := c.get(cmPath + "?watch=1")
		assert.Equal(t, code, r.code)
		assert.EqualValues(t, code, r.status(t).Code)
	}
}

func TestDelayUsesTheClock(t *testing.T) {
	clock := NewFakeClock(time.Unix(1e9, 0))
	s, c := newTestServer(t, Options{Clock: clock, CompactionInterval: -1})
	s.DelayNext(DelayRule{Match: request.Match{Verb: "get"}, Delay: time.Hour})
	done := make(chan response)
	go func() {
		done <- c.get("/api/v1/namespaces/default")
	}()
	require.NoError(t, clock.WaitForTimers(testContext(t), 1))
	select {
	case <-done:
		t.Fatal("the request was not delayed")
	default:
	}
	clock.Step(time.Hour)
	assert.Equal(t, http.StatusOK, (<-done).code)
}

func TestExpireNextContinueAndStaleLists(t *testing.T) {
	s, c := newTestServer(t, Options{})
	for i := range 3 {
		c.mustCreate(cmPath, fmt.Sprintf(`{"metadata":{"name":"cm%d"}}`, i))
	}
	first := decodeList(t, c.get(cmPath+"?limit=1"))
	s.ExpireNextContinue(request.Match{Resource: "configmaps"}, 1, false)
	r := c.get(cmPath + "?limit=1&continue=" + first.Metadata["continue"].(string))
	require.Equal(t, http.StatusGone, r.code)
	st := r.status(t)
	assert.Empty(t, st.Continue)
	assert.Contains(t, st.Message, "start a new list without the continue parameter")
	assert.Equal(t, http.StatusOK, c.get(cmPath+"?limit=1&continue="+first.Metadata["continue"].(string)).code)

	old := s.ResourceVersion()
	c.mustCreate(cmPath, `{"metadata":{"name":"new"}}`)
	s.ServeStaleLists(old)
	l := decodeList(t, c.get(cmPath+"?resourceVersion=0"))
	assert.Len(t, l.Items, 3, "a stale list does not see the newest object")
	assert.Equal(t, fmt.Sprint(old), l.Metadata["resourceVersion"])
	assert.Len(t, decodeList(t, c.get(cmPath)).Items, 4, "a consistent list does")
	s.StopStaleLists()
	assert.Len(t, decodeList(t, c.get(cmPath+"?resourceVersion=0")).Items, 4)
}

func TestRestartDropsConnectionsKeepsData(t *testing.T) {
	s, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	w := c.watch(cmPath + "?watch=1&resourceVersion=" + rvOf(t, a))
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 1))
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	assert.Equal(t, "ADDED", w.next().Type)
	s.Restart(true)
	assert.Error(t, w.end(), "the watch connection is dropped")
	assert.Equal(t, http.StatusOK, c.get(cmPath+"/a").code, "data survives")
	w2 := c.watch(cmPath + "?watch=1&resourceVersion=" + rvOf(t, a))
	assert.Equal(t, "ERROR", w2.next().Type, "after a restart older resourceVersions are too old")
}

func TestAdminEndpoint(t *testing.T) {
	s, c := newTestServer(t, Options{Admin: true, Tokens: map[string]User{"t": {Name: "u"}}, AdminToken: "admin"})
	r := c.post("/kubecache-admin/fail", `{"verb":"list","resource":"configmaps","code":503}`)
	assert.Equal(t, http.StatusUnauthorized, r.code, "admin needs its token when auth is on")
	r = c.post("/kubecache-admin/fail", `{"verb":"list","resource":"configmaps","code":503}`, "Authorization", "Bearer admin")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, http.StatusServiceUnavailable, c.get(cmPath, "Authorization", "Bearer t").code)
	r = c.post("/kubecache-admin/fail", `{"code":200}`, "Authorization", "Bearer admin")
	assert.Equal(t, http.StatusBadRequest, r.code)
	r = c.post("/kubecache-admin/compact", ``, "Authorization", "Bearer admin")
	require.Equal(t, http.StatusOK, r.code)
	var out map[string]int64
	require.NoError(t, json.Unmarshal(r.body, &out))
	assert.Equal(t, s.ResourceVersion(), out["compacted"])
	r = c.get("/kubecache-admin/state", "Authorization", "Bearer admin")
	assert.Contains(t, string(r.body), `"compacted":`)
	r = c.post("/kubecache-admin/cut-watches", `{"mode":"sideways"}`, "Authorization", "Bearer admin")
	assert.Equal(t, http.StatusBadRequest, r.code)
	r = c.post("/kubecache-admin/delay", `{"delay":"soon"}`, "Authorization", "Bearer admin")
	assert.Equal(t, http.StatusBadRequest, r.code)
}

func TestRequestLogNamesFaults(t *testing.T) {
	lines := make(chan string, 100)
	logger := slog.New(slog.NewTextHandler(lineWriter(lines), nil))
	s, c := newTestServer(t, Options{Logger: logger})
	s.FailNext(FailRule{Code: 500})
	c.get(cmPath)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, "msg=request") {
				assert.Contains(t, l, `fault="fail 500"`)
				assert.Contains(t, l, "status=500")
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no request log line")
		}
	}
}

// lineWriter sends each write (one log record) to a channel.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	select {
	case w <- string(p):
	default:
	}
	return len(p), nil
}

func TestCorruptNextWatchFrame(t *testing.T) {
	s, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	req, err := http.NewRequest(http.MethodGet, c.base+cmPath+"?watch=1&resourceVersion="+rvOf(t, a), nil)
	require.NoError(t, err)
	resp, err := c.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 1))
	require.Equal(t, 1, s.CorruptNextWatchFrame(request.Match{Resource: "configmaps"}))
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"c"}}`)
	rd := bufio.NewReader(resp.Body)
	line, err := rd.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, `{"type":"ADDED","object":{not json}}`+"\n", line)
	line, err = rd.ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, line, `"name":"c"`, "the stream goes on")
}

func TestDeviationOptions(t *testing.T) {
	s, c := newTestServer(t, Options{WithholdInitialEventsEnd: true, IgnoreLimit: true})
	for i := range 3 {
		c.mustCreate(cmPath, fmt.Sprintf(`{"metadata":{"name":"cm%d"}}`, i))
	}
	l := decodeList(t, c.get(cmPath+"?limit=1"))
	assert.Len(t, l.Items, 3, "IgnoreLimit answers in one page")
	assert.NotContains(t, l.Metadata, "continue")
	w := c.watch(cmPath + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	for range 3 {
		assert.Equal(t, "ADDED", w.next().Type)
	}
	c.mustCreate(cmPath, `{"metadata":{"name":"later"}}`)
	assert.Equal(t, "ADDED", w.next().Type, "no initial-events-end bookmark before the next event")
	_ = s

	_, c2 := newTestServer(t, Options{DisableWatchList: true})
	r := c2.get(cmPath + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
	require.Equal(t, http.StatusUnprocessableEntity, r.code)
	assert.Contains(t, r.status(t).Message, "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")
	c2.mustCreate(cmPath, `{"metadata":{"name":"x"}}`)
	w2 := c2.watch(cmPath + "?watch=1&allowWatchBookmarks=true")
	assert.Equal(t, "ADDED", w2.next().Type, "a plain watch still lists first")
	c2.mustCreate(cmPath, `{"metadata":{"name":"y"}}`)
	assert.Equal(t, "ADDED", w2.next().Type, "but without the end bookmark")
}

func TestMaxWatchersPerUser(t *testing.T) {
	s, c := newTestServer(t, Options{MaxWatchersPerUser: 2, Tokens: map[string]User{"a": {Name: "alice"}, "b": {Name: "bob"}}})
	c.watch(cmPath+"?watch=1", "Authorization", "Bearer a")
	c.watch(cmPath+"?watch=1", "Authorization", "Bearer a")
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 2))
	r := c.get(cmPath+"?watch=1", "Authorization", "Bearer a")
	assert.Equal(t, http.StatusTooManyRequests, r.code)
	assert.Equal(t, "1", r.header.Get("Retry-After"))
	c.watch(cmPath+"?watch=1", "Authorization", "Bearer b") // another user is not limited by alice's watches
	require.NoError(t, s.WaitForWatchers(testContext(t), "configmaps", 3))
}
