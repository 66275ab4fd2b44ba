package main

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/internal/cliprint"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

const getAbout = `List a resource through a reflector into a local store, then print what
the store holds, the way kubectl get prints it.

RESOURCE is any name kubectl accepts, resolved through the server's
discovery: pods, po, deploy, deployments.apps, a custom resource's plural.
With NAME (or RESOURCE/NAME) only that object is listed.

Examples:
  kubecache get pods -A
  kubecache get deploy web -n shop -o yaml
  kubecache get configmaps --explain --chunk-size 2`

// get is "kubecache get RESOURCE [NAME]".
func (a *app) get(ctx context.Context, args []string) error {
	fs := newFlagSet("get", "kubecache get RESOURCE [NAME] [flags]", getAbout)
	var (
		cf      clusterFlags
		lf      listFlags
		output  string
		managed bool
	)
	cf.register(fs)
	lf.register(fs)
	fs.stringVar(&output, "output", "o", "", "output format: wide, json, yaml or name (default a table)")
	fs.boolVar(&managed, "show-managed-fields", "", false, "keep metadata.managedFields in -o json and -o yaml")
	pos, err := a.parse(fs, args, 0, 2)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return &usageError{cmd: "get", msg: "you must specify the type of resource to get (pods, deployments, configmaps, a custom resource...)"}
	}
	word, name := pos[0], ""
	if len(pos) == 2 {
		name = pos[1]
	} else if w, n, ok := strings.Cut(word, "/"); ok {
		word, name = w, n
		if name == "" || strings.Contains(name, "/") {
			return &usageError{cmd: "get", msg: "arguments in resource/name form must have a single resource and name"}
		}
	}
	format, err := cliprint.ParseFormat(output)
	if err != nil {
		return &usageError{cmd: "get", msg: err.Error()}
	}
	pageSize, showProgress, err := lf.listing("get", a.terminal)
	if err != nil {
		return err
	}

	con := newConsole(a.stdout, a.stderr)
	s, t, lw, err := a.openListWatch(ctx, con, cf, lf, word, name, rest.WatchOverHTTP)
	if err != nil {
		return err
	}
	defer s.close()
	store := cache.NewIndexer[*meta.Unstructured](nil)
	var narrate, showing func(reflector.TraceEvent)
	if lf.explain {
		narrate = newNarrator(con, false, newTimeline(a.now)).trace
	}
	if showProgress {
		showing = (&progress{c: con, now: a.now, what: t.api.GroupResource()}).observe
	}
	if err := listOnce(ctx, lw, store, reflector.Options{Name: t.api.GroupResource(), PageSize: pageSize, DisableStreamingList: true},
		hooks(narrate, showing), func(msg string) { con.errf("%s", msg) }); err != nil {
		return s.wrap(err)
	}

	objs := store.List()
	sort.Slice(objs, func(i, j int) bool {
		if objs[i].Namespace != objs[j].Namespace {
			return objs[i].Namespace < objs[j].Namespace
		}
		return objs[i].Name < objs[j].Name
	})
	if name != "" && len(objs) == 0 {
		return &notFoundError{Resource: t.api.GroupResource(), Name: name}
	}
	if len(objs) == 0 && (format == cliprint.Table || format == cliprint.Wide) {
		con.errf("No resources found%s.", t.where())
		return nil
	}
	var buf bytes.Buffer
	err = cliprint.Print(&buf, t.print, objs, cliprint.Options{
		Format: format, WithNamespace: t.allNamespaces, Single: name != "", Now: a.now(), ShowManagedFields: managed,
	})
	con.out(buf.Bytes())
	return err
}

// listOnce runs a reflector until its first list is in store, and stops
// it: kubecache get is the first half of what an informer does. trace
// sees every step until then. An error the reflector would wait on (the
// server unreachable, 401, 403, a 5xx) ends the list and is returned, as
// kubectl would fail; one it recovers from at once (a 410 on a continue
// token, an expired resourceVersion) is left to it. Objects the store
// refused are reported to warn.
func listOnce(ctx context.Context, lw reflector.ListerWatcher[*meta.Unstructured], store *cache.Indexer[*meta.Unstructured],
	opts reflector.Options, trace func(reflector.TraceEvent), warn func(string)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The hooks run on the goroutine that calls Run, this one, so these
	// need no lock.
	var (
		synced bool
		failed error
	)
	opts.Trace = func(ev reflector.TraceEvent) {
		if synced || failed != nil {
			return
		}
		trace(ev)
		if _, ok := ev.(reflector.Replaced); ok {
			synced = true
			cancel()
		}
	}
	opts.OnError = func(e *reflector.Error) {
		if e.Op == "store" {
			warn("warning: " + e.Error())
			return
		}
		if _, waits := e.Next.(reflector.BackingOff); waits && !synced && failed == nil {
			failed = e
			cancel()
		}
	}
	r, err := reflector.NewReflector[*meta.Unstructured](lw, store, opts)
	if err != nil {
		return err
	}
	if err := r.Run(ctx); err != nil {
		return err
	}
	switch {
	case synced:
		return nil
	case failed != nil:
		return failed
	}
	return ctx.Err()
}

// withCmd sets the command of a usage error that has none.
func withCmd(err error, cmd string) error {
	var u *usageError
	if errors.As(err, &u) && u.cmd == "" {
		u.cmd = cmd
	}
	return err
}
