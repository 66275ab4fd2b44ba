package reflector

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/internal/await"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// This file holds the unit-test harness: a ListerWatcher whose every call is
// answered by the test (so a test plays the server one request at a time), a
// watch the test feeds, a map store that checks resourceVersions never go
// backwards, and a fake clock.

// Obj is the object type of the unit tests.
type Obj struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            string `json:"data,omitempty"`
}

// obj builds a namespaced Obj.
func obj(name, rv string) *Obj {
	return &Obj{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// bookmark builds a bookmark object, annotated when end is true.
func bookmark(rv string, end bool) *Obj {
	o := &Obj{ObjectMeta: meta.ObjectMeta{ResourceVersion: rv}}
	if end {
		o.Annotations = map[string]string{watch.InitialEventsEndAnnotation: "true"}
	}
	return o
}

// listCall is one List request waiting for the test's answer.
type listCall struct {
	opts  ListOptions
	known Known[*Obj]
	reply chan listReply
}

type listReply struct {
	items []*Obj
	lm    meta.ListMeta
	err   error
}

// answer makes the List return items and lm.
func (c listCall) answer(rv, cont string, items ...*Obj) {
	c.reply <- listReply{items: items, lm: meta.ListMeta{ResourceVersion: rv, Continue: cont}}
}

// fail makes the List return err.
func (c listCall) fail(err error) { c.reply <- listReply{err: err} }

// watchCall is one Watch request waiting for the test's answer.
type watchCall struct {
	opts  ListOptions
	reply chan watchReply
}

type watchReply struct {
	w   *fakeWatch
	err error
}

// open accepts the watch and returns the stream the test feeds.
func (c watchCall) open() *fakeWatch {
	w := newFakeWatch()
	c.reply <- watchReply{w: w}
	return w
}

// fail rejects the watch request with err.
func (c watchCall) fail(err error) { c.reply <- watchReply{err: err} }

// scriptLW is a ListerWatcher whose calls the test answers.
type scriptLW struct {
	lists   chan listCall
	watches chan watchCall
}

func newScriptLW() *scriptLW {
	return &scriptLW{lists: make(chan listCall), watches: make(chan watchCall)}
}

func (s *scriptLW) List(ctx context.Context, opts ListOptions, known Known[*Obj], emit func(*Obj) error) (meta.ListMeta, error) {
	c := listCall{opts: opts, known: known, reply: make(chan listReply, 1)}
	select {
	case s.lists <- c:
	case <-ctx.Done():
		return meta.ListMeta{}, ctx.Err()
	}
	var rep listReply
	select {
	case rep = <-c.reply:
	case <-ctx.Done():
		return meta.ListMeta{}, ctx.Err()
	}
	if rep.err != nil {
		return meta.ListMeta{}, rep.err
	}
	for _, it := range rep.items {
		// As a ListerWatcher over HTTP would: reuse what is known.
		if known != nil {
			if k, ok := known(it.Namespace, it.Name, it.ResourceVersion); ok {
				it = k
			}
		}
		if err := emit(it); err != nil {
			return meta.ListMeta{}, err
		}
	}
	return rep.lm, nil
}

func (s *scriptLW) Watch(ctx context.Context, opts ListOptions, _ Known[*Obj]) (watch.Interface[*Obj], error) {
	c := watchCall{opts: opts, reply: make(chan watchReply, 1)}
	select {
	case s.watches <- c:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case rep := <-c.reply:
		if rep.err != nil {
			return nil, rep.err
		}
		return rep.w, nil
	case <-ctx.Done():
		// A watch opened as the context ended is stopped, as a watch
		// bound to the context would be.
		select {
		case rep := <-c.reply:
			if rep.w != nil {
				rep.w.Stop()
			}
		default:
		}
		return nil, ctx.Err()
	}
}

// fakeWatch is a watch the test feeds. Events are buffered, so the test
// never blocks on the reflector; Stop and end close the channel once.
type fakeWatch struct {
	// mu guards closed and stopped, and serialises sends with the close.
	mu      sync.Mutex
	closed  bool
	stopped bool
	ch      chan watch.Event[*Obj]
	// reading is closed when the consumer first asks for ResultChan.
	reading  chan struct{}
	readOnce sync.Once
}

func newFakeWatch() *fakeWatch {
	return &fakeWatch{ch: make(chan watch.Event[*Obj], 1000), reading: make(chan struct{})}
}

// ResultChan returns the events; the first call marks the watch as read.
func (w *fakeWatch) ResultChan() <-chan watch.Event[*Obj] {
	w.readOnce.Do(func() { close(w.reading) })
	return w.ch
}

// waitRead waits until the reflector reads the watch's events.
func (w *fakeWatch) waitRead(t *testing.T) {
	t.Helper()
	recv(t, w.reading)
}

func (w *fakeWatch) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.closeLocked()
}

// isStopped reports whether the reflector stopped the watch.
func (w *fakeWatch) isStopped() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stopped
}

func (w *fakeWatch) closeLocked() {
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
}

// send queues an event unless the watch is closed.
func (w *fakeWatch) send(ev watch.Event[*Obj]) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.ch <- ev
	}
}

func (w *fakeWatch) add(o *Obj)    { w.send(watch.Event[*Obj]{Type: watch.Added, Object: o}) }
func (w *fakeWatch) modify(o *Obj) { w.send(watch.Event[*Obj]{Type: watch.Modified, Object: o}) }
func (w *fakeWatch) del(o *Obj)    { w.send(watch.Event[*Obj]{Type: watch.Deleted, Object: o}) }
func (w *fakeWatch) bookmark(rv string, end bool) {
	w.send(watch.Event[*Obj]{Type: watch.Bookmark, Object: bookmark(rv, end)})
}
func (w *fakeWatch) fail(st *meta.Status) { w.send(watch.Event[*Obj]{Type: watch.Error, Status: st}) }

// end closes the stream as a server does at its timeout.
func (w *fakeWatch) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closeLocked()
}

// mapStore is a Store and Lookup over a map that fails the test if any
// object's resourceVersion goes backwards.
type mapStore struct {
	t *testing.T
	// mu guards everything below.
	mu       sync.Mutex
	items    map[string]*Obj
	replaced int
	resyncs  int
	rv       string
	// changed is closed and replaced on every write.
	changed chan struct{}
}

func newMapStore(t *testing.T) *mapStore {
	return &mapStore{t: t, items: map[string]*Obj{}, changed: make(chan struct{})}
}

func (s *mapStore) putLocked(o *Obj) {
	key := objectKey(o.Namespace, o.Name)
	if old, ok := s.items[key]; ok && olderRV(o.ResourceVersion, old.ResourceVersion) {
		s.t.Errorf("store: %s went back from rv=%s to rv=%s", key, old.ResourceVersion, o.ResourceVersion)
	}
	s.items[key] = o
}

func (s *mapStore) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *mapStore) Add(o *Obj) error { return s.Update(o) }
func (s *mapStore) Update(o *Obj) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putLocked(o)
	s.notifyLocked()
	return nil
}
func (s *mapStore) Delete(o *Obj) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, objectKey(o.Namespace, o.Name))
	s.notifyLocked()
	return nil
}

func (s *mapStore) Replace(items []*Obj, rv string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.items
	s.items = map[string]*Obj{}
	for _, o := range items {
		key := objectKey(o.Namespace, o.Name)
		if prev, ok := old[key]; ok && olderRV(o.ResourceVersion, prev.ResourceVersion) {
			s.t.Errorf("store: Replace moves %s back from rv=%s to rv=%s", key, prev.ResourceVersion, o.ResourceVersion)
		}
		s.items[key] = o
	}
	s.replaced++
	s.rv = rv
	s.notifyLocked()
	return nil
}

func (s *mapStore) Resync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resyncs++
	s.notifyLocked()
	return nil
}

func (s *mapStore) GetByKey(key string) (*Obj, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.items[key]
	return o, ok
}

// contents returns "name@rv" for every stored object, sorted by name.
func (s *mapStore) contents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return contentsOf(s.items)
}

func contentsOf(items map[string]*Obj) []string {
	out := make([]string, 0, len(items))
	for _, o := range items {
		out = append(out, o.Name+"@"+o.ResourceVersion)
	}
	sortStrings(out)
	return out
}

// waitFor blocks until cond holds over the store, failing the test after
// a while.
func (s *mapStore) waitFor(t *testing.T, what string, cond func(s *mapStore) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if cond(s) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("store never reached %s; it holds %v", what, s.contents())
		}
	}
}

// waitContents blocks until the store holds exactly want.
func (s *mapStore) waitContents(t *testing.T, want ...string) {
	t.Helper()
	sortStrings(want)
	s.waitFor(t, fmt.Sprint(want), func(s *mapStore) bool { return fmt.Sprint(s.contents()) == fmt.Sprint(want) })
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// harness runs a Reflector over a scriptLW, a mapStore and a fake clock.
type harness struct {
	t     *testing.T
	lw    *scriptLW
	store *mapStore
	clock *clock.Fake
	r     *Reflector[*Obj]
	run   running

	// results receives what a custom runner reports (ListAndWatch's errors).
	results chan error

	reports
}

// testTimeout bounds every wait of a unit test.
const testTimeout = 10 * time.Second

// start builds a reflector with opts (clock, hooks and no jitter filled in)
// and runs it until the test ends.
func start(t *testing.T, opts Options) *harness {
	t.Helper()
	return startWith(t, opts, func(ctx context.Context, r *Reflector[*Obj], _ chan<- error) {
		if err := r.Run(ctx); err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
	})
}

// startWith is start with a custom runner in place of Run; what it sends on
// results the test reads with nextResult.
func startWith(t *testing.T, opts Options, run func(ctx context.Context, r *Reflector[*Obj], results chan<- error)) *harness {
	t.Helper()
	h := &harness{t: t, lw: newScriptLW(), store: newMapStore(t), clock: clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))}
	opts.Clock = h.clock
	if opts.Backoff.Jitter == 0 {
		opts.Backoff.Jitter = NoJitter
	}
	h.install(&opts)
	r, err := NewReflector[*Obj](h.lw, h.store, opts)
	require.NoError(t, err)
	r.rand = func() float64 { return 0 } // watch timeouts at MinWatchTimeout
	h.r = r
	h.results = make(chan error, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	h.run = goRun(ctx, cancel, func(ctx context.Context) { run(ctx, r, h.results) })
	t.Cleanup(h.stop)
	return h
}

// stop cancels Run and waits for it.
func (h *harness) stop() { h.run.stop(h.t, testTimeout) }

// nextResult waits for the runner's next result.
func (h *harness) nextResult() error {
	h.t.Helper()
	select {
	case err := <-h.results:
		return err
	case <-time.After(testTimeout):
		h.t.Fatalf("runner reported nothing; state trace:\n%s", h.stateTrace())
	}
	return nil
}

// nextList waits for the reflector's next List call.
func (h *harness) nextList() listCall {
	h.t.Helper()
	select {
	case c := <-h.lw.lists:
		return c
	case c := <-h.lw.watches:
		h.t.Fatalf("got WATCH %+v, want a LIST", c.opts)
	case <-time.After(testTimeout):
		h.t.Fatalf("no LIST request; state trace:\n%s", h.stateTrace())
	}
	return listCall{}
}

// nextWatch waits for the reflector's next Watch call.
func (h *harness) nextWatch() watchCall {
	h.t.Helper()
	select {
	case c := <-h.lw.watches:
		return c
	case c := <-h.lw.lists:
		h.t.Fatalf("got LIST %+v, want a WATCH", c.opts)
	case <-time.After(testTimeout):
		h.t.Fatalf("no WATCH request; state trace:\n%s", h.stateTrace())
	}
	return watchCall{}
}

// expectBackoff waits until the reflector waits d on the clock, then lets
// the wait elapse.
func (h *harness) expectBackoff(d time.Duration) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := h.clock.WaitForTimer(ctx, d); err != nil {
		h.t.Fatalf("no %v timer; pending %v; state trace:\n%s", d, h.clock.Pending(), h.stateTrace())
	}
	h.clock.Step(d)
}

// waitWatching waits until the reflector has an open watch running (its
// deadline timer is armed), with the default watch timeout.
func (h *harness) waitWatching() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := h.clock.WaitForTimer(ctx, watchDeadline(int64(DefaultMinWatchTimeout/time.Second))); err != nil {
		h.t.Fatalf("no watch deadline timer; pending %v", h.clock.Pending())
	}
}

// recv receives from c, failing the test if nothing comes in time.
func recv[E any](t *testing.T, c <-chan E) E { return await.Receive(t, c, testTimeout) }

// contextT shortens runner signatures.
type contextT = context.Context

// waitTraces waits until cond holds over the trace events.
func (h *harness) waitTraces(cond func(h *harness) bool) {
	h.t.Helper()
	deadline := time.After(testTimeout)
	for {
		changed := h.tracedChan()
		if cond(h) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			h.t.Fatalf("trace condition never held; state trace:\n%s", h.stateTrace())
		}
	}
}

// stateTrace prints the state changes so far, one per line.
func (h *harness) stateTrace() string {
	var out string
	for i, e := range tracesOf[StateChanged](h) {
		out += strconv.Itoa(i) + ": " + e.String() + "\n"
	}
	return out
}

// status builds an API error Status.
func status(code int32, reason meta.StatusReason) *meta.Status {
	return meta.NewStatus(code, reason, "test "+string(reason))
}
