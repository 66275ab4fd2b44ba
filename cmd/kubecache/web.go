package main

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/internal/webview"
	"github.com/kubecache/kubecache/meta"
)

// webFlags are the live web view's flags: where it listens and the token
// it asks for.
type webFlags struct {
	addr, token string
}

// registerToken adds --web-token.
func (f *webFlags) registerToken(fs *flagSet) {
	fs.stringVar(&f.token, "web-token", "", "", "the token the web view asks for (default: none on a loopback address, a random one elsewhere)")
}

// webServer is a web view listening, and the goroutine that serves it.
type webServer struct {
	view   *webview.View
	ln     net.Listener
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startWeb listens on f.addr and serves view's page there until ctx ends
// or stop is called. A token is generated for an address off loopback
// when none was given.
func startWeb(ctx context.Context, f webFlags, opts webview.Options, cmd string) (*webServer, error) {
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, &usageError{cmd: cmd, msg: fmt.Sprintf("web view: listen on %s: %v", f.addr, err)}
	}
	opts.Token = f.token
	if opts.Token == "" && !isLoopbackAddr(ln.Addr()) {
		opts.Token = webview.NewToken()
	}
	view, err := webview.New(opts)
	if err != nil {
		ln.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &webServer{view: view, ln: ln, cancel: cancel}
	w.wg.Go(func() { _ = view.Serve(ctx, ln) })
	return w, nil
}

// url is the address to open.
func (w *webServer) url() string { return w.view.URL(w.ln) }

// stop stops serving and waits until every connection has ended.
func (w *webServer) stop() {
	w.cancel()
	w.wg.Wait()
}

// isLoopbackAddr reports whether a listener's address is on loopback.
func isLoopbackAddr(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// demoControls are the demo page's buttons and sliders: the faults the
// fake server offers, the workload's rate and a slow handler's delay.
func demoControls(s *fakeapiserver.Server, w *workload, con *console, tl timeline, slow *atomic.Int64) webview.Controls {
	match := fakeapiserver.Match{Resource: "configmaps", Namespace: demoNamespace}
	say := func(what string) { con.outf("%s%s (from the web page)", tl.prefix("fault"), what) }
	return webview.Controls{
		Faults: []webview.Fault{
			{ID: "cut", Label: "Cut the watch", Help: "drop the connection between two events: back off, reconnect from the same rv",
				Do: func(context.Context) error {
					say("cut the watch")
					s.CutWatches(match, fakeapiserver.CutAbort)
					return nil
				}},
			{ID: "compact", Label: "Compact (410)", Help: "cut the watch and forget the history: the resume rv is too old, relist",
				Do: func(ctx context.Context) error {
					say("cut the watch, write elsewhere and compact the history")
					return compactFault(ctx, s, match, w)
				}},
			{ID: "throttle", Label: "429 Too Many Requests", Help: "cut the watch and answer the next two watch requests 429 with Retry-After: 1",
				Do: func(context.Context) error {
					say("cut the watch; the next 2 watch requests get 429")
					watches := match
					watches.Verb = "watch"
					s.FailNext(fakeapiserver.FailRule{Match: watches, Count: 2, Code: 429, RetryAfterSeconds: 1})
					s.CutWatches(match, fakeapiserver.CutAbort)
					return nil
				}},
			{ID: "restart", Label: "Restart the server", Help: "every watch ends and every connection drops; the data stays",
				Do: func(context.Context) error {
					say("restart the server")
					s.Restart(false)
					return nil
				}},
		},
		Sliders: []webview.Slider{
			{ID: "rate", Label: "Workload", Unit: "writes/s", Min: 0, Max: 200, Step: 1, Value: min(w.rate(), 200),
				Set: func(v float64) error { w.setRate(v); return nil }},
			{ID: "slow", Label: "Slow handler", Unit: "ms per call", Min: 0, Max: 1000, Step: 10, Value: float64(slow.Load()),
				Set: func(v float64) error { slow.Store(int64(v)); return nil }},
		},
	}
}

// slowHandler is a handler that takes slow milliseconds per call, until
// ctx ends: the demo's way to show a backlog growing behind one handler
// while the others keep up.
func slowHandler(ctx context.Context, slow *atomic.Int64) informer.Handler[*meta.Unstructured] {
	work := func() {
		d := time.Duration(slow.Load()) * time.Millisecond
		if d <= 0 {
			return
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	return informer.HandlerFuncs[*meta.Unstructured]{
		AddFunc:    func(*meta.Unstructured, bool) { work() },
		UpdateFunc: func(_, _ *meta.Unstructured) { work() },
		DeleteFunc: func(*meta.Unstructured, bool) { work() },
	}
}
