package webview_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/webview"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/watch"
)

// frames reads a view's event stream.
type frames struct {
	t  *testing.T
	sc *bufio.Scanner
}

// openFrames connects to url's /events.
func openFrames(t *testing.T, ctx context.Context, client *http.Client, url string) *frames {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/events", nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &frames{t: t, sc: sc}
}

// next returns the next frame.
func (f *frames) next() webview.Frame {
	f.t.Helper()
	for f.sc.Scan() {
		line := f.sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var fr webview.Frame
			require.NoError(f.t, json.Unmarshal([]byte(data), &fr), "frame %s", data)
			return fr
		}
	}
	f.t.Fatalf("the stream ended: %v", f.sc.Err())
	return webview.Frame{}
}

// until returns the first frame for which ok holds.
func (f *frames) until(what string, ok func(webview.Frame) bool) webview.Frame {
	f.t.Helper()
	for range 200 {
		if fr := f.next(); ok(fr) {
			return fr
		}
	}
	f.t.Fatalf("no frame showed %s in 200 frames", what)
	return webview.Frame{}
}

// replay feeds v what a reflector reports for a list, a watch with three
// events and a bookmark, a cut connection, a back-off, a reconnect, then
// a 410 and a relist.
func replay(v *webview.View) {
	watching := reflector.Watching{ResourceVersion: "10"}
	cut := fmt.Errorf("watch stream: %w", io.ErrUnexpectedEOF)
	wait := reflector.BackingOff{Delay: 800 * time.Millisecond, Then: reflector.Watching{ResourceVersion: "13"}, Cause: cut}
	expired := &meta.Status{Code: 410, Reason: meta.ReasonExpired}
	relist := reflector.Listing{ResourceVersion: "", Cause: expired}
	for _, ev := range []reflector.TraceEvent{
		reflector.ListRequested{Page: 1, Options: reflector.ListOptions{ResourceVersion: "0", Limit: 500}},
		reflector.ListPageReceived{Page: 1, Items: 2, ResourceVersion: "10"},
		reflector.Replaced{Objects: 2, ResourceVersion: "10"},
		reflector.StateChanged{From: reflector.Listing{ResourceVersion: "0"}, To: watching},
		reflector.WatchRequested{Options: reflector.ListOptions{ResourceVersion: "10", AllowWatchBookmarks: true}},
		reflector.EventApplied{Type: watch.Added, Key: "ns/c", ResourceVersion: "11"},
		reflector.EventApplied{Type: watch.Modified, Key: "ns/a", ResourceVersion: "12"},
		reflector.EventApplied{Type: watch.Deleted, Key: "ns/b", ResourceVersion: "13"},
		reflector.BookmarkReceived{ResourceVersion: "15"},
		reflector.WatchEnded{ResourceVersion: "15", Events: 3, Err: cut},
		reflector.StateChanged{From: watching, To: wait},
		reflector.StateChanged{From: wait, To: wait.Then},
		reflector.WatchRequested{Options: reflector.ListOptions{ResourceVersion: "15"}},
		reflector.WatchEnded{ResourceVersion: "15", Err: expired},
		reflector.StateChanged{From: wait.Then, To: relist},
		reflector.ListRequested{Page: 1, Options: reflector.ListOptions{Limit: 500}},
	} {
		v.Trace(ev)
	}
}

func TestStreamCarriesStatesReasonsAndTimeline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	v, err := webview.New(webview.Options{Interval: 10 * time.Millisecond, Title: "replayed"})
	require.NoError(t, err)
	srv := httptest.NewServer(v.Handler())
	t.Cleanup(srv.Close) // after the stream's body is closed

	f := openFrames(t, ctx, srv.Client(), srv.URL)
	first := f.next()
	assert.Equal(t, uint64(1), first.Seq)
	assert.Equal(t, "replayed", first.Name)
	assert.Equal(t, "Starting", first.State.Kind, "nothing traced yet")
	assert.Nil(t, first.Controls, "no controls")

	// A page that connects after the replay gets all of it in its first
	// frame.
	replay(v)
	fr := openFrames(t, ctx, srv.Client(), srv.URL).next()
	require.Equal(t, "Listing", fr.State.Kind)
	assert.True(t, strings.HasPrefix(fr.State.Text, `listing rv="" after: 410`), "state text %q", fr.State.Text)
	var moves, reasons []string
	for _, tr := range fr.Transitions {
		moves = append(moves, tr.From+"->"+tr.To)
		reasons = append(reasons, tr.Reason)
	}
	assert.Equal(t, []string{"Listing->Watching", "Watching->BackingOff", "BackingOff->Watching", "Watching->Listing"}, moves)
	assert.Equal(t, []string{"list complete · watch from rv=10", "connection reset · back-off 800ms", "back-off 800ms over · reconnect", "410 Expired · relist"}, reasons)
	var kinds []string
	for _, p := range fr.Points {
		kinds = append(kinds, p.Kind+":"+p.RV)
	}
	// Marks first, then events: the page places them by time.
	assert.Equal(t, []string{"list:0", "page:10", "replace:10", "watch:10", "bookmark:15", "watch-end:15", "watch:15", "watch-end:15", "relist:", "event:11", "event:12", "event:13"}, kinds)
	assert.Equal(t, []string{"ns/c", "ns/a", "ns/b"}, fr.Store.Changed)
	assert.Equal(t, uint64(1), fr.Counts.Added)
	assert.Equal(t, uint64(1), fr.Counts.Modified)
	assert.Equal(t, uint64(1), fr.Counts.Deleted)
	assert.Equal(t, uint64(1), fr.Counts.Bookmarks)
	assert.Equal(t, uint64(2), fr.Counts.Lists)
	assert.Equal(t, uint64(1), fr.Counts.Relists)
	assert.Equal(t, uint64(1), fr.Counts.Backoffs)
	assert.Zero(t, fr.Coalesced)

	// The first page saw the replay in one frame or more; after that its
	// frames carry only what is new: nothing.
	f.until("the replay on the first page", func(fr webview.Frame) bool { return fr.State.Kind == "Listing" })
	fr = f.next()
	assert.Empty(t, fr.Transitions)
	assert.Empty(t, fr.Points)
}

func TestBurstReachesThePageSampled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	v, err := webview.New(webview.Options{Interval: 10 * time.Millisecond})
	require.NoError(t, err)
	srv := httptest.NewServer(v.Handler())
	t.Cleanup(srv.Close) // after the stream's body is closed

	const before, burst = 5000, 1000
	for i := range before {
		v.Trace(reflector.EventApplied{Type: watch.Modified, Key: "ns/a", ResourceVersion: fmt.Sprint(i + 1)})
	}
	f := openFrames(t, ctx, srv.Client(), srv.URL)
	first := f.next()
	require.Len(t, first.Points, 512, "a page that connects late gets the history the ring holds")
	assert.Equal(t, fmt.Sprint(before), first.Points[511].RV)
	assert.Zero(t, first.Coalesced, "the past is not counted as coalesced")
	assert.Equal(t, uint64(before), first.Counts.Modified)

	for i := range burst {
		v.Trace(reflector.EventApplied{Type: watch.Modified, Key: "ns/a", ResourceVersion: fmt.Sprint(before + i + 1)})
	}
	var points int
	var coalesced uint64
	last := ""
	for points+int(coalesced) < burst {
		fr := f.next()
		assert.LessOrEqual(t, len(fr.Points), 60, "a frame carries at most 60 points")
		points += len(fr.Points)
		coalesced += fr.Coalesced
		if len(fr.Points) > 0 {
			last = fr.Points[len(fr.Points)-1].RV
		}
	}
	assert.Equal(t, burst, points+int(coalesced), "every event is drawn or counted")
	assert.Equal(t, fmt.Sprint(before+burst), last, "the newest event is drawn")
	assert.LessOrEqual(t, len(f.next().Store.Changed), 8)
}

// TestAppliedEventsDoNotAllocate checks the hot path: an applied event
// costs the reflector no allocation.
func TestAppliedEventsDoNotAllocate(t *testing.T) {
	v, err := webview.New(webview.Options{})
	require.NoError(t, err)
	ev := reflector.EventApplied{Type: watch.Modified, Key: "ns/a", ResourceVersion: "7"}
	assert.Zero(t, testing.AllocsPerRun(1000, func() { v.Applied(ev) }), "allocations per applied event")
}
