package reliability_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/internal/reliability"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// This file holds the harness the fault matrix and the chaos test share: a
// fake API server with a fault proxy in front of it, clients under test
// (bare reflectors and informers) reaching the server through the proxy on
// an injected clock, and the uniform check — every client converges to a
// fresh list from the server and no object's resourceVersion ever went
// backwards in anything a client showed.

// waitTimeout bounds every wait; reaching it fails the test.
const waitTimeout = 20 * time.Second

// testToken is the bearer token every client sends. Every output of every
// client is searched for it at the end of a test: credentials must never
// appear in errors, traces or logs.
const testToken = "kc-secret-token-6f1d2c9a"

// stepMax is the longest timer the harness's stepper fires by itself: the
// backoff waits. Longer ones (watch deadlines, the streaming-list bound,
// Retry-After) move only when a test advances the clock.
const stepMax = time.Second

// harnessBackoff makes every wait exact and short on the fake clock.
var harnessBackoff = reflector.Backoff{Initial: 10 * time.Millisecond, Max: 320 * time.Millisecond, ResetAfter: 2 * time.Second, Jitter: reflector.NoJitter}

// resource is what the clients mirror.
type resource struct {
	group, version, plural, namespace string
}

var configMaps = resource{version: "v1", plural: "configmaps", namespace: "default"}

// lw is the resource as reflector.ParseResource reads it.
func (r resource) lw() string {
	if r.group == "" {
		return r.plural
	}
	return r.plural + "." + r.version + "." + r.group
}

// match is the resource as fakeapiserver's fault rules name it.
func (r resource) match(verb string) fakeapiserver.Match {
	name := r.plural
	if r.group != "" {
		name += "." + r.group
	}
	return fakeapiserver.Match{Verb: verb, Resource: name}
}

func (r resource) apiVersion() string {
	if r.group == "" {
		return r.version
	}
	return r.group + "/" + r.version
}

// on builds a request for the resource's collection (or one object).
func (r resource) on(req *rest.Request, name string) *rest.Request {
	req = req.Group(r.group).Version(r.version).Namespace(r.namespace).Resource(r.plural)
	if name != "" {
		req = req.Name(name)
	}
	return req
}

// outputs collects every text the clients and the server produced: errors,
// traces and log records.
type outputs struct {
	// mu guards buf.
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *outputs) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *outputs) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(o, format+"\n", args...)
}

func (o *outputs) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// envOptions shape an env.
type envOptions struct {
	server fakeapiserver.Options
	// refused makes the proxy refuse connections until listen is called.
	refused bool
	// noStepper leaves the fake clock entirely to the test.
	noStepper bool
	// timeout bounds each wait; zero means waitTimeout.
	timeout time.Duration
	// runFor is how long the test runs besides its waits (the chaos
	// test's duration); the env's context lasts that much longer.
	runFor time.Duration
	// maxFrame is every client's rest.Config.MaxWatchFrameBytes; zero
	// means the default bound.
	maxFrame int
	// exec makes every client get its token from an exec credential
	// plugin (exec_plugin_test.go) instead of its Config.
	exec bool
}

// env is one fake API server, a fault proxy in front of it, a direct
// client for writes and fresh lists, a fake clock for the clients and a
// Monitor watching everything they show.
type env struct {
	t      testing.TB
	srv    *fakeapiserver.Server
	proxy  *reliability.FaultProxy
	addr   string // where the proxy listens, or will
	direct *rest.Client
	clock  *clock.Fake
	mon    *reliability.Monitor
	out    *outputs
	ctx    context.Context
	// timeout bounds each wait.
	timeout time.Duration
	// maxFrame is every client's rest.Config.MaxWatchFrameBytes.
	maxFrame int
	// pluginDir, when set, is where the exec plugin the clients run counts
	// its runs.
	pluginDir string
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	e := &env{t: t, clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), mon: reliability.NewMonitor(), out: &outputs{}, timeout: o.timeout, maxFrame: o.maxFrame}
	if e.timeout == 0 {
		e.timeout = waitTimeout
	}
	if o.exec {
		e.pluginDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*e.timeout+o.runFor)
	t.Cleanup(cancel)
	e.ctx = ctx
	so := o.server
	so.Tokens = map[string]fakeapiserver.User{testToken: {Name: "admin", Groups: []string{"system:masters"}}}
	so.Logger = slog.New(slog.NewTextHandler(e.out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if so.TooLargeResourceVersionWait == 0 {
		so.TooLargeResourceVersionWait = 50 * time.Millisecond
	}
	e.srv = fakeapiserver.NewForTest(t, so)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("outputs (last 60 lines):\n%s", tail(e.out.String(), 60))
		}
	})
	p, err := reliability.NewFaultProxy(e.srv.URL())
	require.NoError(t, err)
	e.proxy = p
	t.Cleanup(p.Close)
	if o.refused {
		e.addr, err = reliability.ReserveLoopbackAddr()
		require.NoError(t, err)
	} else {
		require.NoError(t, p.Listen(""))
		e.addr = strings.TrimPrefix(p.URL(), "http://")
	}
	e.direct = e.newClient(e.srv.URL())
	e.startAttackers()
	if !o.noStepper {
		e.startStepper()
	}
	return e
}

// newClient returns a client of host that sends the test token and logs
// everything at debug level into the outputs.
func (e *env) newClient(host string) *rest.Client {
	cfg := &rest.Config{
		Host:               host,
		BearerToken:        testToken,
		QPS:                -1,
		MaxWatchFrameBytes: e.maxFrame,
		Logger:             slog.New(slog.NewTextHandler(e.out, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if e.pluginDir != "" {
		cfg.BearerToken, cfg.Exec = "", execConfig(e.pluginDir)
	}
	c, err := rest.NewClient(cfg)
	require.NoError(e.t, err)
	e.t.Cleanup(c.CloseIdleConnections)
	return c
}

// listen makes the proxy start listening where the clients already point.
func (e *env) listen() { require.NoError(e.t, e.proxy.Listen(e.addr)) }

// startStepper fires every short timer (a backoff) as soon as it is set,
// so clients never wait for real time; it stops when the test ends.
func (e *env) startStepper() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var step time.Duration
			err := e.clock.WaitFor(ctx, func(p []time.Duration) bool {
				step = 0
				for _, d := range p {
					if d <= stepMax && (step == 0 || d < step) {
						step = d
					}
				}
				return step > 0
			})
			if err != nil {
				return
			}
			e.clock.Step(step)
		}
	}()
	e.t.Cleanup(func() { cancel(); <-done })
}

// object is a ConfigMap-shaped body (or a custom resource of kind).
func object(res resource, kind, name, v string) map[string]any {
	o := map[string]any{
		"apiVersion": res.apiVersion(),
		"kind":       kind,
		"metadata":   map[string]any{"name": name, "namespace": res.namespace},
	}
	if res.group == "" {
		o["data"] = map[string]string{"v": v}
	} else {
		o["spec"] = map[string]string{"v": v}
	}
	return o
}

func kindOf(res resource) string {
	if res.group == "" {
		return "ConfigMap"
	}
	return "Widget"
}

// write sends one write to the server, retrying when the connection
// failed before an answer (a restart drops the server's connections). It
// returns the server's answer.
func (e *env) write(do func() error) (retried bool, err error) {
	for i := range 5 {
		err = do()
		var se *rest.StatusError
		if err == nil || errors.As(err, &se) {
			return i > 0, err
		}
	}
	return true, err
}

// create writes a new object.
func (e *env) create(res resource, name, v string) {
	e.t.Helper()
	retried, err := e.write(func() error {
		return res.on(e.direct.Post(), "").Body(object(res, kindOf(res), name, v)).Do(e.ctx).Error()
	})
	if retried && rest.IsAlreadyExists(err) {
		err = nil // the first attempt went through
	}
	require.NoError(e.t, err, "create %s", name)
}

// update changes an object's value.
func (e *env) update(res resource, name, v string) {
	e.t.Helper()
	body := map[string]any{"data": map[string]string{"v": v}}
	if res.group != "" {
		body = map[string]any{"spec": map[string]string{"v": v}}
	}
	_, err := e.write(func() error {
		return res.on(e.direct.Patch(rest.MergePatchType), name).Body(body).Do(e.ctx).Error()
	})
	require.NoError(e.t, err, "update %s", name)
}

// remove deletes an object.
func (e *env) remove(res resource, name string) {
	e.t.Helper()
	retried, err := e.write(func() error { return res.on(e.direct.Delete(), name).Do(e.ctx).Error() })
	if retried && rest.IsNotFound(err) {
		err = nil // the first attempt went through
	}
	require.NoError(e.t, err, "delete %s", name)
}

// seed creates n objects named prefix-0...
func (e *env) seed(res resource, prefix string, n int) {
	e.t.Helper()
	for i := range n {
		e.create(res, fmt.Sprintf("%s-%d", prefix, i), "0")
	}
}

// serverState lists the resource from the server directly: what a fresh
// client would see. A 404 (the resource is gone) is an empty state.
func (e *env) serverState(res resource) (reliability.Snapshot, error) {
	s := reliability.Snapshot{}
	_, _, err := res.on(e.direct.Get(), "").List(e.ctx, func(item []byte) error {
		m, err := meta.PeekMeta(item)
		if err != nil {
			return err
		}
		s[m.Namespace+"/"+m.Name] = m.ResourceVersion
		return nil
	})
	if rest.IsNotFound(err) {
		return reliability.Snapshot{}, nil
	}
	return s, err
}

// waitFor waits until cond holds, re-checking at every observation of the
// Monitor (store writes, notifications, errors, traces) and every request
// through the proxy.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.NewTimer(e.timeout)
	defer deadline.Stop()
	for {
		mc, pc := e.mon.Changed(), e.proxy.Changed()
		if cond() {
			return
		}
		select {
		case <-mc:
		case <-pc:
		case <-deadline.C:
			e.t.Fatalf("never saw %s", what)
		}
	}
}

// waitTimer waits until the clients have set a timer of exactly d.
func (e *env) waitTimer(d time.Duration) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, e.timeout)
	defer cancel()
	require.NoError(e.t, e.clock.WaitFor(ctx, func(p []time.Duration) bool { return slices.Contains(p, d) }),
		"no timer of %v set; pending: %v", d, e.clock.Pending())
}

// waitTimerAtLeast waits until the clients have set a timer of d or
// longer (a watch deadline).
func (e *env) waitTimerAtLeast(d time.Duration) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, e.timeout)
	defer cancel()
	require.NoError(e.t, e.clock.WaitFor(ctx, func(p []time.Duration) bool {
		return slices.ContainsFunc(p, func(x time.Duration) bool { return x >= d })
	}), "no timer of %v or more set; pending: %v", d, e.clock.Pending())
}

// waitConverged waits until every client has synced and every view of
// every client equals a fresh list from the server, and checks that
// nothing went backwards. It returns how long convergence took.
func (e *env) waitConverged(res resource, clients ...*subject) time.Duration {
	e.t.Helper()
	start := time.Now()
	deadline := time.NewTimer(e.timeout)
	defer deadline.Stop()
	var last string
	for {
		mc, pc := e.mon.Changed(), e.proxy.Changed()
		want, err := e.serverState(res)
		require.NoError(e.t, err)
		last = ""
		for _, c := range clients {
			if !c.synced() {
				last += c.kind + ": not synced\n"
				continue
			}
			for view, got := range c.views() {
				if d := got.Diff(want); d != "" {
					last += c.kind + " " + view + ":\n" + d + "\n"
				}
			}
		}
		if last == "" {
			require.Empty(e.t, e.mon.Violations(), "resourceVersions went backwards")
			return time.Since(start)
		}
		select {
		case <-mc:
		case <-pc:
		case <-deadline.C:
			msg := "clients never converged:\n" + last
			for _, c := range clients {
				msg += c.kind + " states:\n" + c.rec.stateTrace()
			}
			e.t.Fatal(msg)
		}
	}
}

// recorder keeps what one client reported: errors and traces, each with
// the fake clock's time, and writes them to the outputs.
type recorder struct {
	kind  string
	clock *clock.Fake
	mon   *reliability.Monitor
	out   *outputs

	// mu guards errs, traces and seq.
	mu     sync.Mutex
	errs   []timed[*reflector.Error]
	traces []timed[reflector.TraceEvent]
	seq    int
}

// timed is something that happened at a time of the fake clock; seq
// orders errors and traces of one client.
type timed[T any] struct {
	seq int
	at  time.Time
	v   T
}

func (r *recorder) onError(err *reflector.Error) {
	r.out.printf("%s error: %v (%+v) class=%s next=%s", r.kind, err, err.Err, err.Class, err.Next)
	r.mu.Lock()
	r.seq++
	r.errs = append(r.errs, timed[*reflector.Error]{r.seq, r.clock.Now(), err})
	r.mu.Unlock()
	r.mon.Touch()
}

func (r *recorder) onTrace(ev reflector.TraceEvent) {
	r.out.printf("%s trace: %s", r.kind, ev)
	r.mu.Lock()
	r.seq++
	r.traces = append(r.traces, timed[reflector.TraceEvent]{r.seq, r.clock.Now(), ev})
	r.mu.Unlock()
	r.mon.Touch()
}

// errors returns the reported errors.
func (r *recorder) errors() []timed[*reflector.Error] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// tracesOf returns the traces of type E.
func tracesOf[E reflector.TraceEvent](r *recorder) []timed[E] {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []timed[E]
	for _, t := range r.traces {
		if e, ok := t.v.(E); ok {
			out = append(out, timed[E]{t.seq, t.at, e})
		}
	}
	return out
}

// stateTrace prints the state changes.
func (r *recorder) stateTrace() string {
	var b strings.Builder
	for _, e := range tracesOf[reflector.StateChanged](r) {
		b.WriteString("  " + e.v.String() + "\n")
	}
	return b.String()
}

// relists counts the store replacements after the first.
func (r *recorder) relists() int { return max(len(tracesOf[reflector.Replaced](r))-1, 0) }

// backoffs returns the waits the client chose, in order.
func (r *recorder) backoffs() []time.Duration {
	var out []time.Duration
	for _, e := range tracesOf[reflector.StateChanged](r) {
		if b, ok := e.v.To.(reflector.BackingOff); ok {
			out = append(out, b.Delay)
		}
	}
	return out
}

// classes summarises the reported errors: "transient×2, expired×1".
func (r *recorder) classes() string {
	counts := map[reflector.ErrorClass]int{}
	var order []reflector.ErrorClass
	for _, e := range r.errors() {
		if counts[e.v.Class] == 0 {
			order = append(order, e.v.Class)
		}
		counts[e.v.Class]++
	}
	if len(order) == 0 {
		return "none"
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%s×%d", c, counts[c])
	}
	return strings.Join(parts, ", ")
}

// subject is one client under test: a bare reflector or an informer.
type subject struct {
	kind   string
	rec    *recorder
	synced func() bool
	// views returns what the client shows: its store, and an informer's
	// handler model.
	views func() map[string]reliability.Snapshot
	stop  func()
	// restart, for a bare reflector, starts a new reflector writing into
	// the same store (a component restarted with its cache kept).
	restart func() *subject
}

// clientKinds are the kinds of client every matrix row runs against.
var clientKinds = []string{"reflector", "informer"}

// start starts a client of kind mirroring res through the proxy.
func start[T meta.Object](e *env, kind string, res resource, ropts reflector.Options) *subject {
	e.t.Helper()
	return startWith[T](e, kind, kind, res, ropts, nil)
}

// startWith starts a client named name (unique in the env: it prefixes
// the Monitor's keys); a reflector writes into store if it is set.
func startWith[T meta.Object](e *env, kind, name string, res resource, ropts reflector.Options, store *reliability.CheckedStore[T]) *subject {
	e.t.Helper()
	given := ropts
	c := e.newClient("http://" + e.addr)
	rec := &recorder{kind: name, clock: e.clock, mon: e.mon, out: e.out}
	if ropts.Backoff == (reflector.Backoff{}) {
		ropts.Backoff = harnessBackoff
	}
	if ropts.ResourceGoneMaxWait == 0 {
		// The probes of a resource gone must stay under stepMax: the
		// stepper fires them at once, so a slow test could otherwise
		// double them past what it fires and wait forever.
		ropts.ResourceGoneMaxWait = harnessBackoff.Max
	}
	ropts.Clock = e.clock
	ropts.Name = res.plural
	ropts.OnError = rec.onError
	ropts.Trace = rec.onTrace
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s := &subject{kind: name, rec: rec}
	var run func(context.Context) error
	switch kind {
	case "reflector":
		if store == nil {
			store = reliability.NewCheckedStore[T](e.mon, name)
		}
		s.restart = func() *subject { return startWith[T](e, kind, name, res, given, store) }
		lw := reflector.NewListWatchFromClient[T](c, res.lw(), res.namespace, selectorNone)
		r, err := reflector.NewReflector[T](lw, store, ropts)
		require.NoError(e.t, err)
		s.synced = r.HasSynced
		s.views = func() map[string]reliability.Snapshot {
			return map[string]reliability.Snapshot{"store": store.Snapshot()}
		}
		run = r.Run
	case "informer":
		lw, err := reflector.NewListWatch[T](c, reflector.Source{Resource: res.lw(), Namespace: res.namespace})
		require.NoError(e.t, err)
		inf, err := informer.New[T](lw, informer.Options[T]{Reflector: ropts, Clock: e.clock})
		require.NoError(e.t, err)
		model := reliability.NewModelHandler[T](e.mon, name)
		_, err = inf.AddEventHandler(model, informer.HandlerOptions{Name: "model"})
		require.NoError(e.t, err)
		s.synced = inf.HasSynced
		s.views = func() map[string]reliability.Snapshot {
			return map[string]reliability.Snapshot{
				"indexer": reliability.SnapshotOf(inf.Indexer().List()),
				"handler": model.Snapshot(),
			}
		}
		run = func(ctx context.Context) error {
			// The informer turns synced after its handler saw the
			// list, and nothing else would wake a waiter then.
			ctx, cancel := context.WithCancel(ctx)
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			wg.Go(func() {
				select {
				case <-inf.Synced():
					e.mon.Touch()
				case <-ctx.Done():
				}
			})
			return inf.Run(ctx)
		}
	default:
		e.t.Fatalf("unknown client kind %q", kind)
	}
	go func() {
		defer close(done)
		if err := run(ctx); err != nil {
			e.t.Errorf("%s: Run() = %v", name, err)
		}
	}()
	s.stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(e.timeout):
			e.t.Errorf("%s: Run did not return after cancel", name)
		}
	}
	e.t.Cleanup(s.stop)
	return s
}
