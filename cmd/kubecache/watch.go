package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/internal/cliprint"
	"github.com/kubecache/kubecache/internal/webview"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/metrics"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

const watchAbout = `Run an informer on a resource and print every change as it is reflected
into the cache: the time, the type (ADDED, MODIFIED, DELETED), the
namespace/name and the resourceVersion. The informer first lists (each
object arrives as ADDED, marked "initial list"), then watches. Ctrl-C ends
it and prints a summary: objects held, events seen, relists, reconnects.

With -o json each event is one JSON object per line, for scripts:
  {"time":…,"type":"MODIFIED","key":"default/web","resourceVersion":"42"}
and --show-object adds the object. Narration (--explain), warnings and the
summary go to stderr, so stdout holds only events.

Examples:
  kubecache watch pods -A
  kubecache watch deploy -n shop --explain
  kubecache watch configmaps --transport=websocket
  kubecache watch configmaps -o json --show-object | jq .key
  kubecache watch configmaps -A --web 127.0.0.1:8080   and open the printed address
  kubecache watch pods -A --metrics-addr 127.0.0.1:9090   then scrape http://127.0.0.1:9090/metrics`

// watch is "kubecache watch RESOURCE [NAME]".
func (a *app) watch(ctx context.Context, args []string) error {
	fs := newFlagSet("watch", "kubecache watch RESOURCE [NAME] [flags]", watchAbout)
	var (
		cf         clusterFlags
		lf         listFlags
		output     string
		showObject bool
		streaming  bool
		wf         webFlags
		transport  string
		metricsAt  string
	)
	cf.register(fs)
	lf.register(fs)
	fs.stringVar(&output, "output", "o", "", "json: one JSON object per event (default one line of text per event)")
	fs.boolVar(&showObject, "show-object", "", false, "with -o json, include each event's object")
	fs.boolVar(&streaming, "streaming-list", "", true, "list with a streaming list (a WATCH with sendInitialEvents) when the server offers it; false lists page by page")
	fs.stringVar(&wf.addr, "web", "", "", "serve a live web view of the informer at this address (127.0.0.1:0 picks a port)")
	wf.registerToken(fs)
	fs.stringVar(&transport, "transport", "", "http", "how watches receive events: http (one chunked response) or websocket (one message per event)")
	fs.stringVar(&metricsAt, "metrics-addr", "", "", "serve the informer's metrics at http://ADDR/metrics in the Prometheus text format (127.0.0.1:0 picks a port)")
	pos, err := a.parse(fs, args, 1, 2)
	if err != nil {
		return err
	}
	word, name := pos[0], ""
	if len(pos) == 2 {
		name = pos[1]
	}
	if output != "" && output != "json" {
		return &usageError{cmd: "watch", msg: fmt.Sprintf("watch prints -o json or text, not %q", output)}
	}
	if showObject && output != "json" {
		return &usageError{cmd: "watch", msg: "--show-object needs -o json"}
	}
	watchTransport, err := rest.ParseWatchTransport(transport)
	if err != nil {
		return &usageError{cmd: "watch", msg: fmt.Sprintf("--transport is http or websocket, not %q", transport)}
	}
	pageSize, showProgress, err := lf.listing("watch", a.terminal)
	if err != nil {
		return err
	}

	con := newConsole(a.stdout, a.stderr)
	s, t, lw, err := a.openListWatch(ctx, con, cf, lf, word, name, watchTransport)
	if err != nil {
		return err
	}
	defer s.close()
	var web *webServer
	if wf.addr != "" {
		if web, err = startWeb(ctx, wf, webview.Options{}, "watch"); err != nil {
			return err
		}
		con.errf("web view: %s", web.url())
		defer web.stop()
	}
	var ms *metricsServer
	if metricsAt != "" {
		if ms, err = startMetrics(metricsAt, "watch"); err != nil {
			return err
		}
		con.errf("metrics: %s", ms.url())
		defer ms.stop()
	}
	run := watchRun{
		con:      con,
		now:      a.now,
		target:   t,
		stats:    newTraceStats(),
		json:     output == "json",
		object:   showObject,
		explain:  lf.explain,
		progress: showProgress,
	}
	if web != nil {
		run.web = web.view
	}
	if ms != nil {
		run.metrics = ms.reg
	}
	return s.wrap(run.run(ctx, lw, reflector.Options{PageSize: pageSize, DisableStreamingList: !streaming}))
}

// watchRun is one run of an informer that prints its events; demo uses it
// too.
type watchRun struct {
	con    *console
	now    func() time.Time
	target target
	stats  *traceStats
	// json prints events as JSON lines, object with their object.
	json, object bool
	// explain narrates the reflector's steps; toStdout sends the narration
	// to stdout (the demo) instead of stderr.
	explain, toStdout bool
	// tl, when set, starts every event line with "handler +elapsed" and
	// every note with "informer +elapsed" (the demo) instead of the time
	// of day.
	tl       *timeline
	progress bool
	// keepGoing keeps running when the first list fails (the demo, whose
	// server is known to come back), instead of failing like kubectl.
	keepGoing bool
	// web, when set, is the live web view: it gets the reflector's trace
	// and shows the informer.
	web *webview.View
	// slow, when set, adds a handler that takes that many milliseconds
	// per call (the demo page's slider), so its backlog can be watched.
	slow *atomic.Int64
	// metrics, when set, receives the informer's and reflector's metrics.
	metrics *metrics.Registry

	// Handler counts, written by the handler's goroutine.
	adds, initial, updates, deletes atomic.Int64
}

// run runs the informer until ctx is cancelled, printing each event; then
// it prints the summary. It returns early with the error if the first
// list fails in a way the reflector would wait on (unless keepGoing).
func (w *watchRun) run(ctx context.Context, lw reflector.ListerWatcher[*meta.Unstructured], ropts reflector.Options) error {
	var narrate, showing func(reflector.TraceEvent)
	tl := newTimeline(w.now)
	if w.tl != nil {
		tl = *w.tl
	}
	if w.explain {
		narrate = newNarrator(w.con, w.toStdout, tl).trace
	}
	if w.progress {
		showing = (&progress{c: w.con, now: w.now, what: w.target.api.GroupResource()}).observe
	}
	var web func(reflector.TraceEvent)
	if w.web != nil {
		web = w.web.Trace
	}
	ropts.Trace = hooks(w.stats.observe, narrate, showing, web)
	failed := make(chan error, 1)
	var synced atomic.Bool
	inf, err := informer.New(lw, informer.Options[*meta.Unstructured]{
		Name:                 w.target.api.GroupResource(),
		SkipUnchangedUpdates: true,
		Reflector:            ropts,
		Metrics:              w.metricsSink(),
		OnError: func(err error) {
			var re *reflector.Error
			if asReflectorError(err, &re) && !synced.Load() && !w.keepGoing {
				// Before the first sync, an error the reflector would
				// wait on fails the command, as kubectl would; one it
				// gets past at once (a streaming list the server
				// refuses, a 410) is its own business.
				if _, waits := re.Next.(reflector.BackingOff); waits {
					select {
					case failed <- err:
					default:
					}
				}
				return
			}
			// Printed with --explain too: the narration shows that the
			// reflector backs off, only the error says why (a 401 on a
			// watch request ends no stream, so no trace carries it).
			w.con.errf("warning: %v", err)
		},
	})
	if err != nil {
		return err
	}
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*meta.Unstructured]{
		AddFunc: func(obj *meta.Unstructured, initial bool) {
			w.adds.Add(1)
			if initial {
				w.initial.Add(1)
			}
			w.print("ADDED", obj, initial, false)
		},
		UpdateFunc: func(_, obj *meta.Unstructured) {
			w.updates.Add(1)
			w.print("MODIFIED", obj, false, false)
		},
		DeleteFunc: func(obj *meta.Unstructured, unknown bool) {
			w.deletes.Add(1)
			w.print("DELETED", obj, false, unknown)
		},
	}, informer.HandlerOptions{Name: "print"}); err != nil {
		return err
	}
	if w.slow != nil {
		if _, err := inf.AddEventHandler(slowHandler(ctx, w.slow), informer.HandlerOptions{Name: "slow"}); err != nil {
			return err
		}
	}
	if w.web != nil {
		webview.Attach(w.web, inf)
	}

	start := w.now()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(runCtx) })
	var fail error
	syncedCh := inf.Synced()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case fail = <-failed:
			break loop
		case <-syncedCh:
			synced.Store(true)
			syncedCh = nil
			w.note(fmt.Sprintf("synced: %s at rv=%s; now watching for changes", plural(inf.Indexer().Len(), "object"), inf.LastSyncResourceVersion()))
		}
	}
	cancel()
	wg.Wait()
	if fail != nil {
		return fail
	}
	w.note(fmt.Sprintf("watched %s for %s: %s held at rv=%s", w.target.api.GroupResource(),
		w.now().Sub(start).Round(time.Millisecond), plural(inf.Indexer().Len(), "object"), inf.LastSyncResourceVersion()))
	w.note(fmt.Sprintf("  handler:   %d added (%d from the initial list), %d modified, %d deleted",
		w.adds.Load(), w.initial.Load(), w.updates.Load(), w.deletes.Load()))
	w.note("  reflector: " + w.stats.summary())
	return nil
}

// metricsSink is where the informer reports: the registry, or nothing.
func (w *watchRun) metricsSink() metrics.Sink {
	if w.metrics == nil {
		return nil
	}
	return w.metrics
}

// note prints a line about the run (not an event) where narration goes.
func (w *watchRun) note(s string) {
	if w.tl != nil {
		s = w.tl.prefix("informer") + s
	}
	if w.toStdout {
		w.con.outf("%s", s)
	} else {
		w.con.errf("%s", s)
	}
}

// watchEvent is one event as -o json prints it.
type watchEvent struct {
	Time              string          `json:"time"`
	Type              string          `json:"type"`
	Key               string          `json:"key"`
	ResourceVersion   string          `json:"resourceVersion"`
	Initial           bool            `json:"initial,omitempty"`
	FinalStateUnknown bool            `json:"finalStateUnknown,omitempty"`
	Object            json.RawMessage `json:"object,omitempty"`
}

// print prints one event the handler received.
func (w *watchRun) print(typ string, obj *meta.Unstructured, initial, finalStateUnknown bool) {
	now := w.now()
	key := meta.Key(obj)
	if w.json {
		ev := watchEvent{Time: now.UTC().Format(time.RFC3339Nano), Type: typ, Key: key, ResourceVersion: obj.ResourceVersion,
			Initial: initial, FinalStateUnknown: finalStateUnknown}
		if w.object {
			b, err := cliprint.WithType(w.target.print, obj).MarshalJSON()
			if err != nil {
				w.con.errf("warning: encode %s: %v", key, err)
			}
			ev.Object = b
		}
		b, err := json.Marshal(ev)
		if err != nil {
			w.con.errf("warning: encode event of %s: %v", key, err)
			return
		}
		w.con.outf("%s", b)
		return
	}
	line := fmt.Sprintf("%s  %-8s  %s  rv=%s", now.Format("15:04:05.000"), typ, key, obj.ResourceVersion)
	if w.tl != nil {
		line = fmt.Sprintf("%s%-8s  %s  rv=%s", w.tl.prefix("handler"), typ, key, obj.ResourceVersion)
	}
	switch {
	case initial:
		line += "  (initial list)"
	case finalStateUnknown:
		line += "  (deleted while not watching: final state unknown)"
	}
	w.con.outf("%s", line)
}
