package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/cliprint"
	"github.com/kubecache/kubecache/internal/webview"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

const demoAbout = `Watch the list/watch machinery work, with no cluster: the command starts
kubecache's fake API server, a workload that creates, updates and deletes
ConfigMaps, and an informer whose reflector narrates every step (as
--explain does). On a schedule it breaks things the way networks and
servers do — it cuts the watch, and it compacts the server's history so
that the watch's resourceVersion becomes too old (410 Gone) — so that you
see the reflector reconnect after a backoff and relist.

Each line starts with who speaks:
  workload   a write to the server
  reflector  a step of the reflector (list, page, replace, watch, event, bookmark, backoff)
  handler    an event the informer's handler receives
  fault      a fault injected into the server

With --web the command also serves a live page of the machinery (the
state machine, the resourceVersion timeline, the store, the handlers) with
buttons that inject the faults and sliders for the workload's rate and a
slow handler (--faults-every 0 leaves the breaking to the buttons).

Runs until Ctrl-C, or for --duration.`

// demoNamespace is where the workload writes.
const demoNamespace = "demo"

// demoOptions are demo's flags.
type demoOptions struct {
	duration, faultsEvery time.Duration
	rate                  float64
	objects, chunk        int64
	streaming, web        bool
	seed                  int64
	wf                    webFlags
}

// parseDemo reads and checks demo's command line.
func (a *app) parseDemo(args []string) (demoOptions, error) {
	fs := newFlagSet("demo", "kubecache demo [flags]", demoAbout)
	var o demoOptions
	fs.durationVar(&o.duration, "duration", 0, "stop after this long, counted once the first objects exist (0: run until Ctrl-C)")
	fs.durationVar(&o.faultsEvery, "faults-every", 6*time.Second, "time between injected faults, counted from the recovery of the last (0: no faults)")
	fs.Float64Var(&o.rate, "rate", 2, "workload writes per second (0: no writes)")
	fs.int64Var(&o.objects, "objects", 25, "ConfigMaps created before the informer starts")
	fs.int64Var(&o.chunk, "chunk-size", 10, "objects per page of the reflector's lists")
	fs.boolVar(&o.streaming, "streaming-list", "", false, "list with a streaming list (WATCH with sendInitialEvents) instead of pages")
	fs.int64Var(&o.seed, "seed", 1, "seed of the workload's choices")
	fs.boolVar(&o.web, "web", "", false, "also serve a live web view of the machinery, with fault buttons (see --web-addr)")
	fs.stringVar(&o.wf.addr, "web-addr", "", "127.0.0.1:0", "the web view's address (127.0.0.1:0 picks a port)")
	o.wf.registerToken(fs)
	if _, err := a.parse(fs, args, 0, 0); err != nil {
		return o, err
	}
	switch {
	case o.duration < 0, o.faultsEvery < 0, o.rate < 0, o.objects < 0, o.chunk < 0:
		return o, &usageError{cmd: "demo", msg: "--duration, --faults-every, --rate, --objects and --chunk-size must not be negative"}
	case o.rate > 1000:
		return o, &usageError{cmd: "demo", msg: fmt.Sprintf("--rate %v is more than 1000 writes per second", o.rate)}
	case o.objects > 100000:
		return o, &usageError{cmd: "demo", msg: fmt.Sprintf("--objects %d is more than 100000", o.objects)}
	}
	return o, nil
}

// introduce prints what the demo is about to run.
func (o demoOptions) introduce(con *console, serverURL string, backoff reflector.Backoff, page *webServer) {
	con.outf("kubecache demo — no cluster needed.")
	con.outf("  server     a fake API server at %s, in this process", serverURL)
	con.outf("  workload   %v writes/s to ConfigMaps in namespace %q (%d to start with)", o.rate, demoNamespace, o.objects)
	con.outf("  reflector  lists them (%d a page), then watches; backoff %v doubling to %v", o.chunk, backoff.Initial, backoff.Max)
	con.outf("  handler    the informer's event handler, printing each change it receives")
	if o.faultsEvery > 0 {
		con.outf("  fault      every %v: a cut watch (reconnect after a backoff), then a compaction (410, relist)", o.faultsEvery)
	}
	if page != nil {
		con.outf("  web        open %s to see it move, and break it with the buttons", page.url())
	}
	con.outf("Ctrl-C to stop.")
	con.outf("")
}

// demo is "kubecache demo".
func (a *app) demo(ctx context.Context, args []string) error {
	o, err := a.parseDemo(args)
	if err != nil {
		return err
	}
	con := newConsole(a.stdout, a.stderr)
	s := fakeapiserver.New(fakeapiserver.Options{
		BookmarkInterval:   5 * time.Second,
		CompactionInterval: -1, // the demo compacts when it wants a 410
		Seed:               uint64(o.seed),
	})
	if err := s.Start(); err != nil {
		return err
	}
	defer s.Close()
	client, err := rest.NewClient(&rest.Config{Host: s.URL(), QPS: -1})
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	w := newWorkload(client, con, o.seed)
	w.setRate(o.rate)
	if err := w.setUp(ctx, int(o.objects)); err != nil {
		return fmt.Errorf("demo: set up: %w", err)
	}
	tl := newTimeline(a.now)
	w.tl = tl
	var (
		page *webServer
		slow atomic.Int64
	)
	if o.web {
		opts := webview.Options{Title: "configmaps in namespace " + demoNamespace, Controls: demoControls(s, w, con, tl, &slow)}
		if page, err = startWeb(ctx, o.wf, opts, "demo"); err != nil {
			return err
		}
		defer page.stop()
	}

	pageSize := o.chunk
	if pageSize == 0 {
		pageSize = -1
	}
	backoff := reflector.Backoff{Initial: 500 * time.Millisecond, Max: 5 * time.Second, ResetAfter: time.Second}
	o.introduce(con, s.URL(), backoff, page)

	api := rest.APIResource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"list", "watch"}}
	t := target{
		api: api, resource: "v1/configmaps", namespace: demoNamespace,
		print: cliprint.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true},
	}
	lw, err := reflector.NewListWatch[*meta.Unstructured](client, reflector.Source{Resource: t.resource, Namespace: t.namespace})
	if err != nil {
		return err
	}
	run := &watchRun{
		con: con, now: a.now, target: t, stats: newTraceStats(),
		explain: true, toStdout: true, tl: &tl, keepGoing: true,
	}
	if page != nil {
		run.web, run.slow = page.view, &slow
	}
	if o.duration > 0 {
		// --duration counts from here: setting up (the namespace and
		// the first objects) may take its time on a loaded machine.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	var (
		wg     sync.WaitGroup
		runErr error
	)
	wg.Go(func() {
		runErr = run.run(ctx, lw, reflector.Options{PageSize: pageSize, DisableStreamingList: !o.streaming, Backoff: backoff})
	})
	wg.Go(func() { w.run(ctx) })
	if o.faultsEvery > 0 {
		wg.Go(func() { injectFaults(ctx, s, w, con, tl, o.faultsEvery) })
	}
	wg.Wait()
	if runErr != nil {
		return runErr
	}
	con.outf("")
	con.outf("demo over: %s. Next: \"kubecache watch pods -A --explain\" against a cluster, or docs/tour.md.",
		plural(run.stats.relists(), "relist")+", "+plural(run.stats.reconnects(), "reconnect"))
	return nil
}

// injectFaults breaks the informer's watch every interval, alternating a
// cut connection and a compaction that makes the watch's resourceVersion
// too old. Before each fault it waits for a watch to be open, so that the
// previous fault has been recovered from.
func injectFaults(ctx context.Context, s *fakeapiserver.Server, w *workload, con *console, tl timeline, every time.Duration) {
	match := fakeapiserver.Match{Resource: "configmaps", Namespace: demoNamespace}
	for n := 0; ; n++ {
		if err := s.WaitForWatchers(ctx, "configmaps", 1); err != nil {
			return
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if n%2 == 0 {
			con.outf("%scut the watch: the connection drops between two events", tl.prefix("fault"))
			s.CutWatches(match, fakeapiserver.CutAbort)
			continue
		}
		con.outf("%scut the watch, write elsewhere and compact the history: resuming from the old rv will get 410 Gone", tl.prefix("fault"))
		if err := compactFault(ctx, s, match, w); err != nil {
			con.errf("%s%v", tl.prefix("fault"), err)
		}
	}
}

// compactFault cuts the watches m matches, writes elsewhere and forgets
// the history, so that resuming from the resourceVersion a watch had
// reached is a 410. It cuts first, so that no bookmark can move a watch
// past the compaction, and again after it: a watch that was being
// opened during the first cut, from the old resourceVersion, would
// otherwise go on as if nothing had happened.
func compactFault(ctx context.Context, s *fakeapiserver.Server, m fakeapiserver.Match, w *workload) error {
	s.CutWatches(m, fakeapiserver.CutAbort)
	err := w.tick(ctx)
	s.CompactNow()
	s.CutWatches(m, fakeapiserver.CutAbort)
	return err
}
