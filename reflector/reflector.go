package reflector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// Reflector mirrors one resource into a Store and keeps it true: it lists,
// replaces the store, watches from the list's resourceVersion and applies
// every event, and recovers from every fault the error policy names
// (error_policy.go) by waiting, rewatching or relisting.
//
// A Reflector runs on the goroutine that calls Run. Besides the watch's own
// stream reader, which the reflector stops before it moves on, it starts
// one goroutine per watch, the watch's deadline, and waits for it before it
// moves on. Its methods other than Run and ListAndWatch are safe to call
// from any goroutine.
type Reflector[T meta.Object] struct {
	lw     ListerWatcher[T]
	store  Store[T]
	lookup Lookup[T] // nil when the store cannot be read
	known  Known[T]  // nil when lookup is nil
	// resyncer is the store's Resync, nil without one or without a period.
	resyncer Resyncer
	// bookmarker is the store's Bookmark, nil without one.
	bookmarker Bookmarker
	opts       Options
	clock      clock.Clock
	// rand returns a number in [0, 1); it draws watch timeouts.
	rand func() float64

	// running is set while Run or ListAndWatch executes.
	running atomic.Bool

	// The fields below are touched only by the goroutine running the loop.

	m machine
	// handoff is the open stream of a streaming list that has synced,
	// waiting for the Watching state that continues it, and
	// handoffDeadline the deadline that bounds it.
	handoff         watch.Interface[T]
	handoffDeadline *deadline
	// nextResync is when the store is next resynced; zero before the first
	// sync or without a resync period.
	nextResync time.Time

	// log is the logger of the current Run (logging.go); nil is quiet.
	// listed is how many objects the last list replaced the store with.
	log    *slog.Logger
	listed int

	// heard is when the server last answered (a list, or any watch
	// event), in Unix nanoseconds of the clock; zero before that.
	heard atomic.Int64
	// gone is what Gone reports: set while the resource is not served.
	gone atomic.Pointer[GoneError]

	// mu guards lastSync and synced, which any goroutine may read.
	mu       sync.Mutex
	lastSync string
	synced   bool
}

// NewReflector returns a Reflector that mirrors what lw lists and watches
// into store. It fails when lw or store is nil, when T is not a usable
// object type (meta.CheckType) or when opts are invalid (ErrInvalidOptions).
//
// If store also implements Lookup (cache.Store does), the reflector reads it
// to reuse unchanged objects during a relist and to refuse updates that
// would move an object's resourceVersion backwards.
func NewReflector[T meta.Object](lw ListerWatcher[T], store Store[T], opts Options) (*Reflector[T], error) {
	if meta.IsNil(lw) {
		return nil, errors.New("new reflector: ListerWatcher is nil")
	}
	if meta.IsNil(store) {
		return nil, errors.New("new reflector: Store is nil")
	}
	if err := meta.CheckType[T](); err != nil {
		return nil, fmt.Errorf("new reflector: %w", err)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("new reflector: %w", err)
	}
	if opts.Name == "" {
		opts.Name = reflect.TypeFor[T]().Elem().Name()
	}
	if opts.Shard != nil {
		lw = &shardedLW[T]{lw: lw, shard: *opts.Shard, selector: opts.Shard.Selector()}
	}
	r := &Reflector[T]{
		lw:    lw,
		store: store,
		opts:  opts,
		clock: opts.Clock,
		rand:  rand.Float64,
	}
	if l, ok := store.(Lookup[T]); ok {
		r.lookup = l
		r.known = r.knownObject
	}
	if b, ok := store.(Bookmarker); ok {
		r.bookmarker = b
	}
	if rs, ok := store.(Resyncer); ok && opts.ResyncPeriod > 0 {
		r.resyncer = rs
	}
	r.m = machine{
		backoff:   backoff{cfg: opts.Backoff, rand: rand.Float64},
		now:       r.clock.Now,
		streaming: !opts.DisableStreamingList && opts.Shard == nil,
		goneMax:   opts.ResourceGoneMaxWait,
	}
	return r, nil
}

// versioned is a store that knows the resourceVersion its contents were
// listed at (cache.Indexer does).
type versioned interface{ ResourceVersion() string }

// Run keeps the store true until ctx is cancelled: list (streaming or
// paginated), replace, watch, and recover from every fault as the error
// policy says. It returns nil once ctx is cancelled and everything it
// started has ended, or ErrAlreadyRunning if the Reflector is already
// running.
func (r *Reflector[T]) Run(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	defer r.running.Store(false)
	_ = r.loop(ctx, false)
	return nil
}

// ListAndWatch runs one cycle of Run: it lists, replaces the store and
// watches, reopening watches that end normally, until the first error; it
// returns that error as an *Error whose Next says what Run would do about
// it, without waiting or relisting. It returns nil when ctx is cancelled.
// Run is ListAndWatch plus the error policy's waits and relists; a caller of
// ListAndWatch brings its own.
func (r *Reflector[T]) ListAndWatch(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	defer r.running.Store(false)
	return r.loop(ctx, true)
}

// LastSyncResourceVersion returns the resourceVersion the store has reached:
// that of the last list, advanced by every watch event and bookmark since.
// It is "" before the first list.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastSync
}

// LastHeard returns when the server last answered: the end of a list or
// the arrival of a watch event (bookmarks included). It is the zero time
// before the first answer. A cache that has not heard from its server for
// long may be stale even though its watch is open.
func (r *Reflector[T]) LastHeard() time.Time {
	ns := r.heard.Load()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// markHeard records that the server answered now.
func (r *Reflector[T]) markHeard() { r.heard.Store(r.clock.Now().UnixNano()) }

// HasSynced reports whether a list (paginated or streaming) has been
// written to the store. It stays false while the first list keeps failing,
// and never turns false again.
func (r *Reflector[T]) HasSynced() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.synced
}

// loop runs the state machine from its initial state until ctx ends, or,
// with once, until the first error.
func (r *Reflector[T]) loop(ctx context.Context, once bool) error {
	defer r.dropHandoff()
	r.startLogging(ctx)
	if v, ok := r.store.(versioned); ok && r.m.lastSync == "" {
		// A store that was synced before (a restarted component that
		// kept its cache) says where it is, so the first list is not
		// trusted blindly: it must not be older than that.
		r.m.lastSync = v.ResourceVersion()
	}
	state := r.m.initial(nil)
	for {
		var begin time.Time
		if r.opts.Metrics != nil || r.log != nil {
			begin = r.clock.Now()
		}
		o := r.step(ctx, state)
		next := r.m.next(state, o)
		r.observe(state, next, o, begin)
		r.logStep(ctx, state, next, o, begin)
		var failure *Error
		if o.err != nil && !o.stopped {
			failure = &Error{Op: opName(state), Resource: r.opts.Name, Class: Classify(o.err), Err: o.err, Next: next}
			if g, ok := next.(ResourceGone); !ok || g.Probes == 0 {
				// A resource that stays gone is reported once, not
				// at every probe.
				r.report(failure)
			}
		}
		r.noteGone(next)
		r.trace(StateChanged{From: state, To: next})
		if _, done := next.(Stopped); done {
			return nil
		}
		if once && failure != nil {
			return failure
		}
		state = next
	}
}

// step runs one state and reports its outcome.
func (r *Reflector[T]) step(ctx context.Context, s State) outcome {
	switch s := s.(type) {
	case Listing:
		return r.list(ctx, s)
	case StreamingList:
		return r.streamingList(ctx, s)
	case Watching:
		return r.watch(ctx, s)
	case BackingOff:
		return r.backOff(ctx, s)
	case ResourceGone:
		return r.waitGone(ctx, s)
	}
	return outcome{stopped: true}
}

// opName names the step a state runs, for errors.
func opName(s State) string {
	switch s.(type) {
	case Listing:
		return "list"
	case StreamingList:
		return "streaming list"
	case Watching:
		return "watch"
	}
	return "wait"
}

// backOff waits s.Delay, resyncing the store meanwhile if it is due.
func (r *Reflector[T]) backOff(ctx context.Context, s BackingOff) outcome {
	c, stop := r.clock.NewTimer(s.Delay)
	defer stop()
	resync := r.armResync()
	defer func() { resync.stop() }()
	for {
		select {
		case <-ctx.Done():
			return outcome{stopped: true}
		case <-c:
			return outcome{}
		case <-resync.c:
			resync = r.resync(s, resync)
		}
	}
}

// replace swaps the store's contents for buf in one step and records the
// sync.
func (r *Reflector[T]) replace(buf *buffer[T], rv string) error {
	// The server has answered: say so before the store can show the list
	// to anyone, so that a reader who sees the sync also sees the answer.
	r.markHeard()
	if err := buf.commit(rv); err != nil {
		return fmt.Errorf("replace store: %w", err)
	}
	r.mu.Lock()
	r.lastSync = rv
	r.synced = true
	r.mu.Unlock()
	r.m.lastSync = rv
	r.listed = buf.n
	if r.resyncer != nil && r.nextResync.IsZero() {
		r.nextResync = r.clock.Now().Add(r.opts.ResyncPeriod)
	}
	r.trace(Replaced{Objects: buf.n, Reused: buf.reused, Kept: buf.kept, ResourceVersion: rv})
	return nil
}

// advance moves the resume point to rv, never backwards (advancesRV).
func (r *Reflector[T]) advance(rv string) {
	if !advancesRV(r.m.lastSync, rv) {
		return
	}
	r.m.lastSync = rv
	r.mu.Lock()
	r.lastSync = rv
	r.mu.Unlock()
}

// knownObject is the Known the reflector hands to its ListerWatcher: the
// stored object under namespace/name if its resourceVersion is rv.
func (r *Reflector[T]) knownObject(namespace, name, rv string) (T, bool) {
	var zero T
	if rv == "" {
		return zero, false
	}
	obj, ok := r.lookup.GetByKey(objectKey(namespace, name))
	if !ok || meta.IsNil(obj) {
		return zero, false
	}
	m := obj.GetObjectMeta()
	if m.ResourceVersion != rv || m.Name != name || m.Namespace != namespace {
		return zero, false
	}
	return obj, true
}

// stored returns what the store holds under key, if the store can be read.
func (r *Reflector[T]) stored(key string) (T, bool) {
	var zero T
	if r.lookup == nil {
		return zero, false
	}
	obj, ok := r.lookup.GetByKey(key)
	if !ok || meta.IsNil(obj) {
		return zero, false
	}
	return obj, true
}

// report hands err to the error hook.
func (r *Reflector[T]) report(err *Error) {
	r.logError(err)
	if r.opts.OnError != nil {
		r.opts.OnError(err)
	}
}

// trace hands ev to the trace hook.
func (r *Reflector[T]) trace(ev TraceEvent) {
	if r.opts.Trace != nil {
		r.opts.Trace(ev)
	}
}

// tracing reports whether a trace hook is set, so that per-object trace
// events are built only when someone reads them.
func (r *Reflector[T]) tracing() bool { return r.opts.Trace != nil }

// traceApplied hands an applied event to Applied, or else to Trace.
func (r *Reflector[T]) traceApplied(ev EventApplied) {
	if r.opts.Applied != nil {
		r.opts.Applied(ev)
		return
	}
	r.trace(ev)
}

// tracingApplied reports whether a hook reads applied events.
func (r *Reflector[T]) tracingApplied() bool { return r.opts.Applied != nil || r.opts.Trace != nil }

// dropHandoff stops a streaming list's stream nobody continued.
func (r *Reflector[T]) dropHandoff() {
	if r.handoff != nil {
		r.handoff.Stop()
		r.handoffDeadline.end()
		r.handoff, r.handoffDeadline = nil, nil
	}
}

// watchTimeout draws the timeoutSeconds of the next watch in
// [MinWatchTimeout, MaxWatchTimeout).
func (r *Reflector[T]) watchTimeout() int64 {
	lo, hi := r.opts.MinWatchTimeout, r.opts.MaxWatchTimeout
	d := lo + time.Duration(r.rand()*float64(hi-lo))
	return max(int64(d/time.Second), 1)
}

// objectKey is the store key of namespace/name.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
