package webview_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/kubecache/kubecache/internal/webview"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/watch"
)

// A View takes the reflector's trace (here replayed by hand; in a program,
// reflector.Options.Trace and Applied, then Attach with the informer) and
// streams frames to the page. This reads the first frame as the page does.
func Example() {
	v, err := webview.New(webview.Options{Title: "configmaps"})
	if err != nil {
		panic(err)
	}
	watching := reflector.Watching{ResourceVersion: "10"}
	cut := fmt.Errorf("watch stream: %w", io.ErrUnexpectedEOF)
	for _, ev := range []reflector.TraceEvent{
		reflector.ListRequested{Page: 1, Options: reflector.ListOptions{ResourceVersion: "0", Limit: 500}},
		reflector.Replaced{Objects: 3, ResourceVersion: "10"},
		reflector.StateChanged{From: reflector.Listing{ResourceVersion: "0"}, To: watching},
		reflector.WatchEnded{ResourceVersion: "11", Events: 1, Err: cut},
		reflector.StateChanged{From: watching, To: reflector.BackingOff{Delay: 800 * time.Millisecond, Then: watching, Cause: cut}},
	} {
		v.Trace(ev)
	}
	v.Applied(reflector.EventApplied{Type: watch.Modified, Key: "default/a", ResourceVersion: "11"})

	srv := httptest.NewServer(v.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var f webview.Frame
		if err := json.Unmarshal([]byte(data), &f); err != nil {
			panic(err)
		}
		fmt.Println("now:", f.State.Kind)
		for _, t := range f.Transitions {
			fmt.Printf("%s -> %s: %s\n", t.From, t.To, t.Reason)
		}
		for _, p := range f.Points {
			fmt.Println(p.Kind, p.Type, p.Key, "rv="+p.RV)
		}
		break
	}
	// Output:
	// now: BackingOff
	// Listing -> Watching: list complete · watch from rv=10
	// Watching -> BackingOff: connection reset · back-off 800ms
	// list   rv=0
	// replace   rv=10
	// watch-end   rv=11
	// event MODIFIED default/a rv=11
}
