package reliability_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/reliability"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/watch"
)

// The fault matrix: one row per fault a network or an API server can
// produce, each run against a bare reflector and an informer over loopback
// (through the fault proxy, for the faults the fake server cannot make
// itself), each ending with the same check — every view of the client (a
// reflector's store; an informer's indexer and the model its handler
// rebuilt from notifications alone) equals a fresh list from the server,
// and no object's resourceVersion ever went backwards in any of them. Every
// client sends a bearer token, and nothing any of them printed may contain
// it. The matrix is printed as a table (-v), and written as Markdown to
// the file -matrix.out names.

var matrixOut = flag.String("matrix.out", "", "write the fault matrix as a Markdown table to this file")

// row is one fault of the matrix.
type row struct {
	// fault names it; how says how it is injected; expect is what the
	// client must do, besides converging.
	fault, how, expect string
	// res is the resource mirrored (ConfigMaps unless set).
	res *resource
	env envOptions
	// opts are the reflector options of the row (the harness adds its
	// backoff, clock and hooks).
	opts reflector.Options
	// before runs before the client starts; unsynced rows inject before
	// the first sync.
	before   func(e *env, kind string)
	unsynced bool
	// inject makes the fault and the writes that happen during it.
	inject func(e *env, s *subject)
	// check makes the row's own assertions once the client converged and
	// returns what the client did, for the table.
	check func(t *testing.T, e *env, s *subject) string
	// longOnly rows run only in the long form (-reliability.long).
	longOnly bool
	// gap, per client kind, says why that client does not survive the
	// fault yet; that cell is skipped and shown as a gap.
	gap map[string]string
}

// marker is the line the proxy's stream faults hit: the watch event of an
// update of cm-1.
const marker = `"name":"cm-1"`

// atMarker is the injection of a stream fault: arm sets the proxy up to
// hit the marker, then cm-1 is updated (the event the fault hits) and cm-3
// after it (an event the resumed watch must still deliver).
func atMarker(arm func(e *env)) func(e *env, s *subject) {
	return func(e *env, s *subject) {
		arm(e)
		e.update(configMaps, "cm-1", "x")
		e.update(configMaps, "cm-3", "y")
	}
}

// forceRelist makes the client's next watch request fail with 410.
func forceRelist(e *env, res resource) {
	e.srv.FailNext(fakeapiserver.FailRule{Match: res.match("watch"), Code: 410})
	e.srv.CutWatches(res.match(""), fakeapiserver.CutClean)
}

// errorsMatching returns the reported errors for which is holds.
func errorsMatching(s *subject, is func(*reflector.Error) bool) []*reflector.Error {
	var out []*reflector.Error
	for _, e := range s.rec.errors() {
		if is(e.v) {
			out = append(out, e.v)
		}
	}
	return out
}

func ofClass(c reflector.ErrorClass) func(*reflector.Error) bool {
	return func(e *reflector.Error) bool { return e.Class == c }
}

// observed is the usual cell: the error classes reported and the relists.
func observed(s *subject) string {
	return fmt.Sprintf("%s; relists %d", s.rec.classes(), s.rec.relists())
}

// notRelisted is the check of a fault the client rides out without a
// relist.
func notRelisted(t *testing.T, _ *env, s *subject) string {
	assert.Zero(t, s.rec.relists())
	return observed(s)
}

// expiredThenRelisted is the check of a fault that must end in an expired
// error and exactly one relist.
func expiredThenRelisted(t *testing.T, _ *env, s *subject) string {
	assert.NotEmpty(t, errorsMatching(s, ofClass(reflector.ClassExpired)))
	assert.Equal(t, 1, s.rec.relists())
	return observed(s)
}

// transientNoRelist checks that the fault was reported (bad holds its
// errors, msg says what is missing otherwise), classed transient, and
// ridden out without a relist.
func transientNoRelist(t *testing.T, s *subject, bad []*reflector.Error, msg string) string {
	require.NotEmpty(t, bad, msg)
	assert.Equal(t, reflector.ClassTransient, bad[0].Class)
	assert.Zero(t, s.rec.relists())
	return observed(s)
}

// assertSlowRetries checks that every error only a human can fix was
// followed by the longest wait, never a quick retry.
// A streaming list refused that way falls back to a paginated LIST at once
// (a different request, tried once).
func assertSlowRetries(t *testing.T, s *subject) int {
	n := 0
	for _, e := range errorsMatching(s, ofClass(reflector.ClassNeedsHuman)) {
		n++
		if _, ok := e.Next.(reflector.Listing); ok && e.Op == "streaming list" {
			continue
		}
		b, ok := e.Next.(reflector.BackingOff)
		if assert.True(t, ok, "after %v the client goes to %v, not a wait", e, e.Next) {
			assert.Equal(t, harnessBackoff.Max, b.Delay, "after %v", e)
		}
	}
	return n
}

func staleRow() row {
	var oldRV int64
	// moveOn changes the server's state after recording where it was.
	moveOn := func(e *env) {
		oldRV = e.srv.ResourceVersion()
		e.update(configMaps, "cm-1", "new")
		e.remove(configMaps, "cm-2")
		e.create(configMaps, "cm-7", "new")
	}
	return row{
		fault: "stale read from a lagging server",
		how: "fake server serves rv=0 lists from an old snapshot; a reflector restarted over its kept store " +
			"(an informer: started fresh) lists at rv=0",
		expect: "nothing goes back: no deleted object returns, no newer one is lost; converges through the watch",
		opts:   reflector.Options{DisableStreamingList: true},
		// The reflector over the kept store lists from that store's
		// resourceVersion, so the stale rv=0 snapshot is refused.
		before: func(e *env, kind string) {
			if kind == "informer" {
				moveOn(e)
				e.srv.ServeStaleLists(oldRV)
			}
		},
		inject: func(e *env, s *subject) {
			if s.restart != nil {
				moveOn(e)
				e.waitConverged(configMaps, s)
				s.stop()
				e.srv.ServeStaleLists(oldRV)
				*s = *s.restart()
			}
			e.waitFor("the first list", func() bool { return len(tracesOf[reflector.ListPageReceived](s.rec)) > 0 })
			e.srv.StopStaleLists()
			e.update(configMaps, "cm-3", "new")
		},
		check: func(t *testing.T, e *env, s *subject) string {
			pages := tracesOf[reflector.ListPageReceived](s.rec)
			require.NotEmpty(t, pages)
			if s.kind == "reflector" {
				// A reflector restarted over a synced store lists from the
				// store's resourceVersion (13) with NotOlderThan, so the
				// lagging rv=0 snapshot is never asked for.
				assert.NotEqual(t, fmt.Sprint(oldRV), pages[0].v.ResourceVersion, "the restarted reflector took the stale list")
				return fmt.Sprintf("listed at rv=%s (the store's), not the stale rv=%d; %s", pages[0].v.ResourceVersion, oldRV, observed(s))
			}
			assert.Equal(t, fmt.Sprint(oldRV), pages[0].v.ResourceVersion, "the stale list was not served")
			return fmt.Sprintf("listed at stale rv=%s; %s", pages[0].v.ResourceVersion, observed(s))
		},
	}
}

// authRow is the server refusing the client's next three watch requests
// with code; with exec, the client's token comes from an exec credential
// plugin, which must run again after each 401 (its credential dropped) and
// not after a 403 (the credential was fine; the permission was not).
func authRow(code int, exec bool) row {
	name := map[int]string{401: "401 Unauthorized", 403: "403 Forbidden"}[code]
	r := row{
		fault:  name,
		how:    fmt.Sprintf("fake server answers the next 3 watch requests %d", code),
		expect: "reported as needs-human, retried only after the longest backoff",
		env:    envOptions{exec: exec},
		inject: func(e *env, s *subject) {
			e.srv.FailNext(fakeapiserver.FailRule{Match: configMaps.match("watch"), Code: code, Count: 3})
			e.srv.CutWatches(configMaps.match(""), fakeapiserver.CutClean)
			e.update(configMaps, "cm-1", "x")
		},
	}
	var runsBefore int
	if exec {
		r.fault += ", credentials from an exec plugin"
		if code == 401 {
			r.expect += "; the plugin runs again after each 401"
		} else {
			r.expect += "; the plugin does not run again"
		}
		inject := r.inject
		r.inject = func(e *env, s *subject) {
			runsBefore = pluginRuns(e.pluginDir)
			inject(e, s)
		}
	}
	r.check = func(t *testing.T, e *env, s *subject) string {
		n := assertSlowRetries(t, s)
		assert.Equal(t, 3, n, "each refused request reported once")
		cell := fmt.Sprintf("%d reported, each followed by a %v wait", n, harnessBackoff.Max)
		if exec {
			runs := pluginRuns(e.pluginDir) - runsBefore
			if code == 401 {
				assert.Equal(t, 3, runs, "the plugin runs again after each 401 (and once more for the request that succeeds)")
			} else {
				assert.Zero(t, runs, "a 403 is no reason to fetch a new credential")
			}
			cell += fmt.Sprintf("; plugin ran %d more times", runs)
		}
		return cell + "; " + observed(s)
	}
	return r
}

var widgets = resource{group: "example.com", version: "v1", plural: "widgets", namespace: "default"}

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
  "versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

var crds = resource{group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions"}

func (e *env) createCRD() {
	e.t.Helper()
	err := crds.on(e.direct.Post(), "").Body([]byte(widgetCRD)).SetHeader("Content-Type", "application/json").Do(e.ctx).Error()
	require.NoError(e.t, err)
}

func (e *env) deleteCRD() {
	e.t.Helper()
	require.NoError(e.t, crds.on(e.direct.Delete(), "widgets.example.com").Do(e.ctx).Error())
}

func crdRow() row {
	return row{
		fault:  "the watched resource deleted (CRD removed)",
		how:    "delete the CustomResourceDefinition, then create it again with new objects",
		res:    &widgets,
		expect: "objects deleted, the 404 reported once as the resource gone and probed with growing waits; new objects listed once it is back",
		before: func(e *env, _ string) {
			e.createCRD()
			e.seed(widgets, "w", 3)
		},
		inject: func(e *env, s *subject) {
			e.deleteCRD()
			e.waitFor("a 404", func() bool {
				return len(errorsMatching(s, func(err *reflector.Error) bool { return rest.IsNotFound(err) })) > 0
			})
			e.waitConverged(widgets, s) // to nothing
			e.createCRD()
			e.seed(widgets, "again", 2)
		},
		check: func(t *testing.T, e *env, s *subject) string {
			gone := errorsMatching(s, func(err *reflector.Error) bool { return rest.IsNotFound(err) })
			require.NotEmpty(t, gone)
			for _, err := range gone {
				g, ok := err.Next.(reflector.ResourceGone)
				if assert.True(t, ok, "after %v the client goes to %v, not ResourceGone", err, err.Next) {
					assert.Zero(t, g.Probes, "only the first 404 is reported")
				}
			}
			return observed(s)
		},
	}
}

// hugeFrame returns one watch frame of size bytes from its '{' to its '}'
// (what the decoder's bound counts), then a newline.
func hugeFrame(size int) func() io.Reader {
	return func() io.Reader {
		head := `{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"huge"},"data":{"v":"`
		tail := "\"}}}\n"
		n := int64(size) - int64(len(head)+len(tail)-1)
		return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatByte(0), n), strings.NewReader(tail))
	}
}

// oversizeRow is the frame-over-the-bound fault: one event of frame bytes
// against clients whose bound is limit (0: watch.DefaultMaxFrameSize).
func oversizeRow(limit, frame int, longOnly bool) row {
	bound, name := limit, fmt.Sprintf("rest.Config.MaxWatchFrameBytes = %s", sizeText(limit))
	if limit == 0 {
		bound, name = watch.DefaultMaxFrameSize, "watch.DefaultMaxFrameSize"
	}
	r := row{
		fault:    "a frame over the size bound (" + name + ")",
		longOnly: longOnly,
		env:      envOptions{maxFrame: limit},
		how:      fmt.Sprintf("proxy writes one event of %s (the bound + %s)", sizeText(frame), sizeText(frame-bound)),
		expect:   "frame-too-large reported, watch resumed, no relist",
		inject:   atMarker(func(e *env) { e.proxy.InjectAfter(marker, hugeFrame(frame), false) }),
		check: func(t *testing.T, e *env, s *subject) string {
			big := errorsMatching(s, func(err *reflector.Error) bool { return errors.Is(err, watch.ErrFrameTooLarge) })
			require.NotEmpty(t, big, "the oversized frame was not reported")
			assert.Zero(t, s.rec.relists())
			return observed(s)
		},
	}
	if longOnly {
		r.env.timeout = 3 * time.Minute
	}
	return r
}

// sizeText prints a byte count in the largest unit that divides it.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// repeatByte is an endless stream of one byte.
type repeatByte byte

// xs is a block of the filler byte; Read copies from it.
var xs = bytes.Repeat([]byte{'x'}, 64<<10)

func (b repeatByte) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], xs)
	}
	return n, nil
}

const error410 = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (9)","reason":"Expired","code":410}}` + "\n"

// matrixRows are the rows of the fault matrix, in the order of its table:
// the connection breaks, the server answers with an error, the stream
// misbehaves.
func matrixRows() []row {
	return slices.Concat(connectionRows(), errorAnswerRows(), streamRows())
}

// connectionRows are faults of the connection itself: refused, reset or
// cut mid-frame, and a server restart.
func connectionRows() []row {
	return []row{
		{
			fault:    "connection refused at start",
			how:      "client pointed at a loopback port nothing listens on; the proxy starts there later",
			expect:   "refused dials reported as transient, retried with backoff; syncs once the server is there",
			env:      envOptions{refused: true},
			unsynced: true,
			inject: func(e *env, s *subject) {
				e.waitFor("two refused dials", func() bool {
					return len(errorsMatching(s, func(err *reflector.Error) bool { return errors.Is(err, syscall.ECONNREFUSED) })) >= 2
				})
				e.listen()
			},
			check: func(t *testing.T, e *env, s *subject) string {
				refused := errorsMatching(s, func(err *reflector.Error) bool { return errors.Is(err, syscall.ECONNREFUSED) })
				for _, err := range refused {
					assert.Equal(t, reflector.ClassTransient, err.Class, "%v", err)
				}
				return fmt.Sprintf("%d refused; %s", len(refused), observed(s))
			},
		},
		{
			fault:  "connection reset mid-frame",
			how:    "proxy sends half of an event, then resets the TCP connection",
			expect: "transient error, watch resumed from the last whole event, no relist",
			inject: atMarker(func(e *env) { e.proxy.ResetStream(marker) }),
			check: func(t *testing.T, e *env, s *subject) string {
				assert.Equal(t, 1, e.proxy.Counts()[reliability.FaultReset])
				assert.NotEmpty(t, errorsMatching(s, func(err *reflector.Error) bool { return err.Op == "watch" && err.Class == reflector.ClassTransient }))
				assert.Zero(t, s.rec.relists())
				return observed(s)
			},
		},
		{
			fault:  "frame truncated, socket closed",
			how:    "proxy sends half of an event, then closes without ending the response",
			expect: "unexpected EOF reported as transient, watch resumed, no relist",
			inject: atMarker(func(e *env) { e.proxy.TruncateStream(marker) }),
			check: func(t *testing.T, e *env, s *subject) string {
				eof := errorsMatching(s, func(err *reflector.Error) bool { return errors.Is(err, io.ErrUnexpectedEOF) })
				return transientNoRelist(t, s, eof, "the cut frame was not reported as an unexpected EOF")
			},
		},
		{
			fault:  "server restarted, data kept",
			how:    "fake server drops every connection and watch, keeps its data and history",
			expect: "watch resumed from its resourceVersion, no relist",
			inject: func(e *env, s *subject) {
				e.srv.Restart(false)
				e.update(configMaps, "cm-1", "x")
				e.remove(configMaps, "cm-4")
			},
			check: notRelisted,
		},
	}
}

// errorAnswerRows are faults where the server answers with an error: stale
// reads, 401 and 403, a deleted CRD, 410 Gone in each form, 429 and 5xx.
func errorAnswerRows() []row {
	return []row{
		staleRow(),
		authRow(401, false),
		authRow(403, false),
		authRow(401, true),
		authRow(403, true),
		crdRow(),
		{
			fault:  "410 Gone as an immediate response",
			how:    "fake server answers the next watch 410 Expired",
			expect: "expired: relist at a consistent read",
			inject: func(e *env, s *subject) {
				forceRelist(e, configMaps)
				e.update(configMaps, "cm-1", "x")
			},
			check: expiredThenRelisted,
		},
		{
			fault:  "410 Gone as an ERROR event",
			how:    "proxy writes an ERROR event (Status 410 Expired) into the stream and ends it",
			expect: "expired: relist at a consistent read",
			inject: atMarker(func(e *env) {
				e.proxy.InjectAfter(marker, func() io.Reader { return strings.NewReader(error410) }, true)
			}),
			check: expiredThenRelisted,
		},
		{
			fault:  "410 Gone on a continue token",
			how:    "a relist paged by 2; fake server expires the continue token",
			expect: "the list restarts as one request without limit",
			opts:   reflector.Options{DisableStreamingList: true, PageSize: 2},
			inject: func(e *env, s *subject) {
				e.srv.ExpireNextContinue(configMaps.match(""), 1, false)
				forceRelist(e, configMaps)
				e.update(configMaps, "cm-1", "x")
			},
			check: func(t *testing.T, e *env, s *subject) string {
				require.Len(t, tracesOf[reflector.ListRestarted](s.rec), 1)
				return "list restarted; " + observed(s)
			},
		},
		retryAfterRow(false),
		retryAfterRow(true),
		burstRow(),
	}
}

// silentWatch is the injection of a watch that goes silent (after its
// headers, or before them): the proxy silences the next watch, the server
// cuts the current one, and once the client's timer for the silent watch
// is set the clock steps past its deadline (timeoutSeconds + 30s).
func silentWatch(headers bool) func(e *env, s *subject) {
	return func(e *env, s *subject) {
		e.proxy.SilenceNextWatch(headers)
		e.srv.CutWatches(configMaps.match(""), fakeapiserver.CutClean)
		e.waitFor("the silent watch", func() bool { return e.proxy.Counts()[reliability.FaultSilence] == 1 })
		e.update(configMaps, "cm-1", "x")
		e.waitTimerAtLeast(reflector.DefaultMinWatchTimeout)
		e.clock.Step(2*reflector.DefaultMinWatchTimeout + 31*time.Second)
	}
}

// streamRows are faults of an open watch stream: silence, stalls,
// malformed and oversized frames, compaction while disconnected, and a
// streaming list that never ends.
func streamRows() []row {
	return []row{
		{
			fault:  "a watch that never sends a byte",
			how:    "proxy answers 200 with headers and then nothing",
			expect: "the client's own deadline (timeoutSeconds + 30s, on its clock) ends it; watch resumed",
			inject: silentWatch(true),
			check:  notRelisted,
		},
		{
			fault:  "a server that never answers the watch request",
			how:    "proxy accepts the watch request and sends nothing, not even headers",
			expect: "the client's own deadline ends it; watch resumed",
			// The reflector's deadline bounds the request itself, headers
			// included, on its clock.
			inject: silentWatch(false),
			check:  func(t *testing.T, e *env, s *subject) string { return observed(s) },
		},
		{
			fault:  "a watch stalled until the server closes it",
			how:    "fake server stops writing to the watch; its queue (3) fills and it drops the watcher",
			expect: "watch resumed from the last event, no relist",
			env:    envOptions{server: fakeapiserver.Options{WatchQueueLength: 3}},
			inject: func(e *env, s *subject) {
				require.Equal(e.t, 1, e.srv.StallWatches(configMaps.match("")))
				for i := range 8 {
					e.update(configMaps, "cm-1", fmt.Sprint(i))
				}
			},
			check: func(t *testing.T, e *env, s *subject) string { return observed(s) },
		},
		{
			fault:  "a malformed frame",
			how:    "proxy writes a line that is not JSON after an event",
			expect: "syntax error reported as transient, watch resumed, no relist",
			inject: atMarker(func(e *env) {
				e.proxy.InjectAfter(marker, func() io.Reader { return strings.NewReader("{\"type\":\"MODIFIED\",\"object\":{not json}\n") }, false)
			}),
			check: func(t *testing.T, e *env, s *subject) string {
				var syntax *watch.SyntaxError
				bad := errorsMatching(s, func(err *reflector.Error) bool { return errors.As(err, &syntax) })
				return transientNoRelist(t, s, bad, "the malformed frame was not reported")
			},
		},
		// The short form bounds frames at 64 KiB and sends 1 MiB; the long
		// form pushes a frame past the 128 MiB default through the stack.
		oversizeRow(64<<10, 1<<20, false),
		oversizeRow(0, watch.DefaultMaxFrameSize+1, true),
		{
			fault:  "compaction while disconnected",
			how:    "proxy holds the reconnect; writes and a compaction happen meanwhile",
			expect: "the resumed watch gets 410 (ERROR event): relist",
			inject: func(e *env, s *subject) {
				e.proxy.HoldWatches()
				e.srv.CutWatches(configMaps.match(""), fakeapiserver.CutAbort)
				e.waitFor("the held reconnect", func() bool { return e.proxy.Counts()[reliability.FaultHold] >= 1 })
				e.update(configMaps, "cm-1", "x")
				e.remove(configMaps, "cm-2")
				e.create(configMaps, "cm-8", "z")
				e.srv.CompactNow()
				e.proxy.ReleaseWatches()
			},
			check: expiredThenRelisted,
		},
		{
			fault:    "a streaming list that never sends its end bookmark",
			how:      "proxy drops the k8s.io/initial-events-end bookmark",
			expect:   "after InitialEventsTimeout (on the client's clock) the client lists instead",
			unsynced: true,
			before:   func(e *env, _ string) { e.proxy.DropInitialEventsEnd(1) },
			inject: func(e *env, s *subject) {
				e.waitFor("the dropped bookmark", func() bool { return e.proxy.Counts()[reliability.FaultDropEnd] == 1 })
				e.waitTimer(reflector.DefaultInitialEventsTimeout)
				// A change now would end the streaming list as well (a
				// MODIFIED before the bookmark): write after the bound.
				e.clock.Step(reflector.DefaultInitialEventsTimeout)
				e.update(configMaps, "cm-1", "x")
			},
			check: func(t *testing.T, e *env, s *subject) string {
				timeouts := errorsMatching(s, func(err *reflector.Error) bool { return errors.Is(err, reflector.ErrInitialEventsTimeout) })
				assert.Len(t, timeouts, 1)
				assert.GreaterOrEqual(t, e.proxy.Requests()["list"], 1, "no fallback LIST")
				return observed(s)
			},
		},
	}
}

func retryAfterRow(plain bool) row {
	const retry = 7
	r := row{
		fault:  "429 with Retry-After",
		how:    fmt.Sprintf("fake server answers the next watch 429, Retry-After: %d (a Status)", retry),
		expect: fmt.Sprintf("throttled: the next request waits at least %ds on the client's clock; no relist", retry),
	}
	if plain {
		r.fault = "429 as plain text (priority and fairness)"
		r.how = fmt.Sprintf("fake server answers the next watch 429 with a text body, Retry-After: %d", retry)
	}
	r.inject = func(e *env, s *subject) {
		e.srv.FailNext(fakeapiserver.FailRule{Match: configMaps.match("watch"), Code: 429, RetryAfterSeconds: retry, PlainText: plain})
		e.srv.CutWatches(configMaps.match(""), fakeapiserver.CutClean)
		e.update(configMaps, "cm-1", "x")
		e.waitTimer(retry * time.Second)
		// A hair before Retry-After the client is still waiting.
		e.clock.Step(retry*time.Second - time.Millisecond)
		require.Contains(e.t, e.clock.Pending(), retry*time.Second, "the client stopped waiting before Retry-After")
		e.clock.Step(time.Millisecond)
	}
	r.check = func(t *testing.T, e *env, s *subject) string {
		var throttled *timed[*reflector.Error]
		for _, err := range s.rec.errors() {
			if err.v.Class == reflector.ClassThrottled {
				throttled = &err
			}
		}
		require.NotNil(t, throttled, "no throttled error reported")
		var next *timed[reflector.WatchRequested]
		for _, w := range tracesOf[reflector.WatchRequested](s.rec) {
			if w.seq > throttled.seq {
				next = &w
				break
			}
		}
		require.NotNil(t, next, "no watch after the 429")
		waited := next.at.Sub(throttled.at)
		assert.GreaterOrEqual(t, waited, retry*time.Second)
		assert.Zero(t, s.rec.relists())
		return fmt.Sprintf("waited %v; %s", waited, observed(s))
	}
	return r
}

func burstRow() row {
	return row{
		fault:  "500/503/504 bursts",
		how:    "fake server fails the next watches 500, 500, 503, 503, 504; later, after a quiet period, one 503",
		expect: "transient: backoff doubles to its cap, then starts again from its first step after the quiet period",
		inject: func(e *env, s *subject) {
			for _, f := range []struct{ code, n int }{{500, 2}, {503, 2}, {504, 1}} {
				e.srv.FailNext(fakeapiserver.FailRule{Match: configMaps.match("watch"), Code: f.code, Count: f.n})
			}
			e.srv.CutWatches(configMaps.match(""), fakeapiserver.CutClean)
			e.update(configMaps, "cm-1", "x")
			e.waitConverged(configMaps, s)
			e.clock.Step(harnessBackoff.ResetAfter + time.Millisecond)
			e.srv.FailNext(fakeapiserver.FailRule{Match: configMaps.match("watch"), Code: 503})
			e.srv.CutWatches(configMaps.match(""), fakeapiserver.CutClean)
			e.update(configMaps, "cm-3", "y")
		},
		check: func(t *testing.T, e *env, s *subject) string {
			got := s.rec.backoffs()
			// The cut watch (closed at once, no event) and five failures
			// grow the wait; after the quiet period the next failure
			// waits the first step again.
			want := []time.Duration{10, 20, 40, 80, 160, 320}
			for i := range want {
				want[i] *= time.Millisecond
			}
			require.GreaterOrEqual(t, len(got), len(want)+1, "waits: %v", got)
			assert.Equal(t, want, got[:len(want)], "the backoff grows to its cap")
			assert.Equal(t, harnessBackoff.Initial, got[len(got)-1], "the backoff resets after a quiet period: %v", got)
			assert.Zero(t, s.rec.relists())
			return fmt.Sprintf("waits %v; %s", got, observed(s))
		},
	}
}

// matrixResult is one cell of the table.
type matrixResult struct {
	ok        bool
	converged time.Duration
	observed  string
}

func TestFaultMatrix(t *testing.T) {
	rows := matrixRows()
	var mu sync.Mutex
	results := map[string]map[string]matrixResult{}
	for _, r := range rows {
		results[r.fault] = map[string]matrixResult{}
		for _, kind := range clientKinds {
			t.Run(strings.ReplaceAll(r.fault, " ", "_")+"/"+kind, func(t *testing.T) {
				if r.longOnly && !*long {
					t.Skip("long form only (-reliability.long, make chaos): pushing a frame past the default bound takes 20-70 s per client under -race")
				}
				if gap := r.gap[kind]; gap != "" {
					t.Skipf("the %s does not survive this fault yet: %s", kind, gap)
				}
				res := configMaps
				if r.res != nil {
					res = *r.res
				}
				e := newEnv(t, r.env)
				if res == configMaps {
					e.seed(res, "cm", 5)
				}
				if r.before != nil {
					r.before(e, kind)
				}
				s := start[*meta.Unstructured](e, kind, res, r.opts)
				if !r.unsynced {
					e.waitConverged(res, s)
					require.NoError(t, e.srv.WaitForWatchers(e.ctx, res.match("").Resource, 1))
				}
				r.inject(e, s)
				d := e.waitConverged(res, s)
				cell := r.check(t, e, s)
				require.Empty(t, e.mon.Violations())
				assert.NotContains(t, e.out.String(), testToken, "a credential appeared in the output")
				mu.Lock()
				results[r.fault][kind] = matrixResult{ok: !t.Failed(), converged: d, observed: cell}
				mu.Unlock()
			})
		}
	}
	table := matrixTable(rows, results)
	t.Logf("fault matrix (go test ./internal/reliability -run TestFaultMatrix -v):\n%s", table)
	if *matrixOut != "" {
		require.NoError(t, os.WriteFile(*matrixOut, []byte(table), 0o644))
	}
}

// matrixTable renders the results.
func matrixTable(rows []row, results map[string]map[string]matrixResult) string {
	tab := reliability.Table{Header: []string{"fault", "injected by", "the client must", "reflector", "informer"}}
	for _, r := range rows {
		cells := []string{r.fault, r.how, r.expect}
		for _, kind := range clientKinds {
			res, ran := results[r.fault][kind]
			switch {
			case r.gap[kind] != "":
				cells = append(cells, "GAP: "+r.gap[kind])
			case !ran && r.longOnly && !*long:
				cells = append(cells, "long form only (make chaos)")
			case !ran:
				cells = append(cells, "not run")
			case !res.ok:
				cells = append(cells, "FAIL: "+res.observed)
			default:
				cells = append(cells, fmt.Sprintf("ok, converged in %v (%s)", res.converged.Round(time.Millisecond), res.observed))
			}
		}
		tab.Rows = append(tab.Rows, cells)
	}
	return tab.Markdown()
}
