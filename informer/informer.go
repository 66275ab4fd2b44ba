package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/metrics"
	"github.com/kubecache/kubecache/reflector"
)

// QueueKind chooses the queue between an informer's reflector and its
// handlers.
type QueueKind int

const (
	// InOrder (the default) is cache.FIFO: every change is its own entry,
	// in the order the server sent them, so handlers see every state the
	// informer saw, in the server's order.
	InOrder QueueKind = iota
	// DeltaFIFO is cache.DeltaFIFO: changes to one object wait together
	// under the object's first position and are processed at once, so a
	// busy object does not flood the queue. Handlers still see each change,
	// but changes to different objects may be reordered.
	DeltaFIFO
)

// Options configure an informer. The zero value is a sensible informer:
// the in-order queue, no transform, every update delivered, the wall clock
// and the reflector's defaults.
type Options[T meta.Object] struct {
	// Name names the informer in errors ("configmaps"); "" takes
	// Reflector.Name, else the Go type's name.
	Name string
	// Queue chooses the queue; the zero value is InOrder.
	Queue QueueKind
	// Transform rewrites each object before it is stored.
	Transform Transform[T]
	// SkipUnchangedUpdates drops update notifications whose old and new
	// object have the same resourceVersion: the noise of a relist that
	// finds an object unchanged. Resync notifications, which a handler
	// asked for, are always delivered.
	SkipUnchangedUpdates bool
	// Indexers are added to the informer's Indexer besides the built-in
	// namespace index.
	Indexers cache.Indexers[T]
	// Reflector configures the reflector (page size, streaming lists,
	// backoff). Its ResyncPeriod must be zero: resync is per handler
	// (HandlerOptions.ResyncPeriod). Its Clock defaults to Clock, its
	// Name to Name, and its OnError is chained after the informer's own.
	Reflector reflector.Options
	// Clock drives resyncs and backlog ages; nil is the wall clock.
	Clock clock.Clock
	// OnError, if set, receives every error the informer meets: the
	// reflector's (*reflector.Error), panicking handlers
	// (*HandlerPanicError), and objects the cache refused. It is called
	// from the informer's goroutines and must not block.
	OnError func(error)
	// Logger, if set, receives the informer's and its reflector's log
	// lines (logging.go), each labelled with the informer's name, resource
	// and namespaces. Nil takes the logger the context of Run carries
	// (reflector.WithLogger); with neither the informer logs nothing.
	Logger *slog.Logger
	// Metrics, if set, receives the informer's measurements, labelled
	// informer=<Name>: kubecache_informer_events_total (type=add, update,
	// delete), kubecache_informer_lists_total (the initial list and every
	// relist), the gauge kubecache_informer_store_objects, and per
	// handler the latency and duration histograms and backlog gauge of
	// metrics.go. The reflector reports through it too (lists, watches,
	// their durations, relists by cause), unless Reflector.Metrics is set.
	// metrics.Registry keeps them; package metrics/promtext serves them.
	Metrics metrics.Sink
}

// Errors of the informer's lifecycle.
var (
	// ErrAlreadyStarted: Run was called a second time.
	ErrAlreadyStarted = errors.New("informer already started")
	// ErrStopped: a handler was added after Run returned.
	ErrStopped = errors.New("informer stopped")
	// ErrInvalidOptions is wrapped by every error New and AddEventHandler
	// return for bad options.
	ErrInvalidOptions = errors.New("invalid informer options")
)

// Informer keeps a cache of one resource and tells handlers about every
// change: a reflector lists and watches the resource into a queue, and the
// informer pops the queue, applies each change to its Indexer and appends
// a notification to a log that every handler reads at its own pace.
//
//	reflector ──► queue (FIFO or DeltaFIFO) ──► Indexer ──► event log ──► handler 1
//	                                                          │     └───► handler 2 …
//	                                          Lister reads ◄──┘
//
// All methods are safe for concurrent use. Handlers may be added before or
// while it runs. Objects it hands out are shared and must not be modified.
type Informer[T meta.Object] struct {
	name  string
	opts  Options[T]
	clock clock.Clock
	// epoch is the clock's time at New; log entries are timestamped
	// relative to it.
	epoch   time.Time
	indexer *cache.Indexer[T]
	queue   cache.Queue[T]
	store   *queueStore[T]
	refl    *reflector.Reflector[T]
	// multi, for an informer over a set of namespaces, holds one
	// reflector per namespace (namespaces.go); refl is then nil.
	multi *namespaceSet[T]
	log   *eventLog[T]

	// mu orders what handlers see: applying a change to the indexer and
	// appending its notification happen together under it, and so do
	// reading the indexer for a late handler's snapshot and placing its
	// cursor, and queuing a resync. It guards the fields below and the
	// writer side of log.
	mu        sync.Mutex
	listeners map[uint64]*listener[T]
	nextID    uint64

	// synced is set, and syncedCh closed, once the first list is in the
	// indexer and its notifications are in the log; syncSeq is the length
	// of the log then, so a handler that has delivered that much has
	// received the whole initial list.
	synced   atomic.Bool
	syncedCh chan struct{}
	syncSeq  atomic.Uint64

	// errMu guards lastErr, the latest reflector error before the
	// informer synced.
	errMu   sync.Mutex
	lastErr error

	// lifeMu guards state, and the starting of listener goroutines
	// (counted by listenerWG). It is taken before mu, never after.
	lifeMu     sync.Mutex
	state      runState
	listenerWG sync.WaitGroup
	// stopping tells every listener to stop; set when Run ends.
	stopping atomic.Bool

	// resyncChanged wakes the resync loop when handlers come or go.
	resyncChanged chan struct{}
	// fresh records the resourceVersion the indexer reflects; guarded by
	// mu. idle is the queue's Idle, nil if it has none.
	fresh freshness
	idle  idler

	// processFn is inf.process as a value, made once: a method value
	// made at each Pop would allocate per event.
	processFn cache.PopProcessFunc[T]

	// desc is what the informer's ListerWatcher lists, and logger the
	// labelled logger of the current Run (logging.go); nil is quiet.
	desc   reflector.Description
	logger atomic.Pointer[slog.Logger]
}

// runState is where an informer is in its life.
type runState int

const (
	stateNew runState = iota
	stateRunning
	stateStopped
)

// publishBatch bounds how many notifications the informer appends before
// it publishes them to handlers when the queue still has work: publishing
// in batches wakes idle handlers once per batch instead of once per event.
const publishBatch = 64

// New returns an informer for what lw lists and watches. It fails if lw is
// nil, T is not a usable object type, or the options are invalid
// (ErrInvalidOptions, or the reflector's own).
func New[T meta.Object](lw reflector.ListerWatcher[T], opts Options[T]) (*Informer[T], error) {
	inf, err := newCore(opts)
	if err != nil {
		return nil, err
	}
	inf.desc = reflector.Describe(lw)
	refl, err := inf.newReflector(lw, inf.store, "")
	if err != nil {
		return nil, err
	}
	inf.refl = refl
	return inf, nil
}

// newCore returns an informer without its reflector: the queue, the
// indexer, the log and the handlers.
func newCore[T meta.Object](opts Options[T]) (*Informer[T], error) {
	if opts.Reflector.ResyncPeriod != 0 {
		return nil, fmt.Errorf("new informer: %w: Reflector.ResyncPeriod is set; resync is per handler (HandlerOptions.ResyncPeriod)", ErrInvalidOptions)
	}
	if opts.Queue != InOrder && opts.Queue != DeltaFIFO {
		return nil, fmt.Errorf("new informer: %w: unknown QueueKind %d", ErrInvalidOptions, opts.Queue)
	}
	if opts.Transform.Func == nil && opts.Transform.Name != "" {
		return nil, fmt.Errorf("new informer: %w: transform %q has no Func", ErrInvalidOptions, opts.Transform.Name)
	}
	inf := &Informer[T]{
		opts:          opts,
		clock:         clock.Or(opts.Clock),
		indexer:       cache.NewIndexer[T](nil),
		log:           newEventLog[T](),
		listeners:     map[uint64]*listener[T]{},
		syncedCh:      make(chan struct{}),
		resyncChanged: make(chan struct{}, 1),
	}
	inf.processFn = inf.process
	inf.epoch = inf.clock.Now()
	inf.name = opts.Name
	if inf.name == "" {
		inf.name = opts.Reflector.Name
	}
	if inf.name == "" {
		inf.name = typeName[T]()
	}
	if len(opts.Indexers) > 0 {
		if err := inf.indexer.AddIndexers(opts.Indexers); err != nil {
			return nil, fmt.Errorf("new informer %s: %w: %w", inf.name, ErrInvalidOptions, err)
		}
	}
	qopts := cache.QueueOptions[T]{KnownObjects: inf.indexer}
	if opts.Queue == DeltaFIFO {
		inf.queue = cache.NewDeltaFIFO(qopts)
	} else {
		inf.queue = cache.NewFIFO(qopts)
	}
	inf.idle, _ = inf.queue.(idler)
	inf.store = &queueStore[T]{inf: inf, q: inf.queue, transform: opts.Transform.Func}
	return inf, nil
}

// newReflector returns a reflector of lw into store with the informer's
// reflector options, named name ("" for the options' name or the
// informer's).
func (inf *Informer[T]) newReflector(lw reflector.ListerWatcher[T], store reflector.Store[T], name string) (*reflector.Reflector[T], error) {
	ropts := inf.opts.Reflector
	if name != "" {
		ropts.Name = name
	}
	if ropts.Name == "" {
		ropts.Name = inf.name
	}
	if ropts.Clock == nil && inf.opts.Clock != nil {
		ropts.Clock = inf.opts.Clock
	}
	if ropts.Metrics == nil {
		ropts.Metrics = inf.opts.Metrics
	}
	userOnError := ropts.OnError
	ropts.OnError = func(e *reflector.Error) {
		inf.recordReflectorError(e)
		if userOnError != nil {
			userOnError(e)
		}
	}
	refl, err := reflector.NewReflector[T](lw, store, ropts)
	if err != nil {
		return nil, fmt.Errorf("new informer %s: %w", inf.name, err)
	}
	return refl, nil
}

// Name returns the informer's name.
func (inf *Informer[T]) Name() string { return inf.name }

// Indexer returns the informer's cache. It is complete once HasSynced is
// true, and from then on as fresh as the informer. Read it, never write
// it: the informer owns its contents.
func (inf *Informer[T]) Indexer() *cache.Indexer[T] { return inf.indexer }

// Lister returns a typed Lister over the informer's cache.
func (inf *Informer[T]) Lister() cache.Lister[T] { return cache.NewLister(inf.indexer) }

// HasSynced reports whether the informer's first list is in its cache. It
// never turns false again, even during a later relist.
func (inf *Informer[T]) HasSynced() bool { return inf.synced.Load() }

// Synced returns a channel closed once HasSynced is true.
func (inf *Informer[T]) Synced() <-chan struct{} { return inf.syncedCh }

// SyncError says why the informer has not synced yet: the latest error its
// reflector met, as "<name>: <step>: <error>" ("configmaps: list: 403
// Forbidden: …"), wrapping the error (and the server's Status, when there
// was one). It is nil once synced, and nil while no error has happened —
// except while the resource is gone (Gone), which it reports, synced or
// not, as a *reflector.GoneError.
func (inf *Informer[T]) SyncError() error {
	if g := inf.Gone(); g != nil {
		return g
	}
	if inf.HasSynced() {
		return nil
	}
	inf.errMu.Lock()
	defer inf.errMu.Unlock()
	return inf.lastErr
}

// LastSyncResourceVersion returns the resourceVersion the cache has reached
// (see reflector.Reflector.LastSyncResourceVersion).
func (inf *Informer[T]) LastSyncResourceVersion() string {
	if inf.multi != nil {
		return inf.multi.lastSyncResourceVersion()
	}
	return inf.refl.LastSyncResourceVersion()
}

// Run lists, watches and delivers until ctx is cancelled. It returns nil
// once ctx is cancelled and every goroutine it started has ended —
// including every handler's, so Run waits for handler calls in progress.
// It returns ErrAlreadyStarted if called twice: an informer runs once.
func (inf *Informer[T]) Run(ctx context.Context) error {
	if err := inf.startListeners(); err != nil {
		return err
	}
	rctx := inf.startLogging(ctx)
	var wg sync.WaitGroup
	if inf.multi != nil {
		wg.Go(func() { inf.multi.run(rctx) })
	} else {
		wg.Go(func() { _ = inf.refl.Run(rctx) })
	}
	wg.Go(func() { inf.processLoop(ctx) })
	wg.Go(func() { inf.resyncLoop(ctx) })
	wg.Wait()

	inf.queue.Close()
	inf.stopListeners()
	inf.logStopped()
	return nil
}

// startListeners marks the informer running and starts the goroutine of
// every handler added so far. It returns ErrAlreadyStarted if the informer
// has run before.
func (inf *Informer[T]) startListeners() error {
	inf.lifeMu.Lock()
	defer inf.lifeMu.Unlock()
	if inf.state != stateNew {
		return ErrAlreadyStarted
	}
	inf.state = stateRunning
	inf.mu.Lock()
	for _, l := range inf.listeners {
		inf.startListenerLocked(l)
	}
	inf.mu.Unlock()
	return nil
}

// stopListeners marks the informer stopped, tells every handler's
// goroutine to end and waits until they have.
func (inf *Informer[T]) stopListeners() {
	inf.lifeMu.Lock()
	inf.state = stateStopped
	inf.lifeMu.Unlock()
	inf.stopping.Store(true)
	inf.log.wake()
	inf.listenerWG.Wait()
}

// AddEventHandler adds a handler. It first receives OnAdd(obj, true) for
// every object the cache holds — nothing before the informer syncs, or
// the current contents if added later — then every change after that,
// with no gap and no duplicate. It fails if the handler is nil, the
// options are invalid (ErrInvalidOptions) or the informer has stopped
// (ErrStopped).
func (inf *Informer[T]) AddEventHandler(h Handler[T], opts HandlerOptions) (*Registration[T], error) {
	if meta.IsNil(h) {
		return nil, fmt.Errorf("add event handler to %s: %w: handler is nil", inf.name, ErrInvalidOptions)
	}
	if opts.ResyncPeriod < 0 {
		return nil, fmt.Errorf("add event handler to %s: %w: ResyncPeriod %v is negative", inf.name, ErrInvalidOptions, opts.ResyncPeriod)
	}
	resync := opts.ResyncPeriod
	if resync > 0 && resync < MinResyncPeriod {
		resync = MinResyncPeriod
	}

	inf.lifeMu.Lock()
	defer inf.lifeMu.Unlock()
	if inf.state == stateStopped {
		return nil, fmt.Errorf("add event handler to %s: %w", inf.name, ErrStopped)
	}
	inf.mu.Lock()
	inf.nextID++
	now := inf.clock.Now()
	l := &listener[T]{
		inf:          inf,
		h:            h,
		id:           inf.nextID,
		name:         opts.Name,
		resync:       resync,
		nextResync:   now.Add(resync),
		registeredAt: now,
		syncedCh:     make(chan struct{}),
		onBookmark:   opts.OnBookmark,
		onSynced:     opts.OnSynced,
		pred:         opts.Predicate,
		filtered:     !opts.Predicate.isZero(),
		measured:     inf.opts.Metrics != nil,
	}
	if l.onBookmark != nil || l.onSynced != nil {
		inf.fresh.wanted++
	}
	if l.name == "" {
		l.name = "handler-" + strconv.FormatUint(l.id, 10)
	}
	// Everything applied so far is in the snapshot; everything applied
	// from now on is after the cursor.
	l.snapshot = inf.indexer.List()
	l.snapshotLeft.Store(int64(len(l.snapshot)))
	l.cur = inf.log.endLocked()
	l.seg.Store(l.cur.seg)
	l.taken.Store(l.cur.seq())
	l.done.Store(l.cur.seq())
	inf.listeners[l.id] = l
	if inf.state == stateRunning {
		inf.startListenerLocked(l)
	}
	inf.mu.Unlock()
	if resync > 0 {
		inf.resyncScheduleChanged()
	}
	return &Registration[T]{l: l}, nil
}

// startListenerLocked starts l's goroutine. The caller holds lifeMu (and
// mu) and the informer is running.
func (inf *Informer[T]) startListenerLocked(l *listener[T]) {
	inf.listenerWG.Go(l.run)
}

// removeListener unregisters l and wakes it so that it stops.
func (inf *Informer[T]) removeListener(l *listener[T]) {
	inf.mu.Lock()
	_, present := inf.listeners[l.id]
	delete(inf.listeners, l.id)
	if present && (l.onBookmark != nil || l.onSynced != nil) {
		inf.fresh.wanted--
	}
	inf.mu.Unlock()
	if !present {
		return
	}
	l.removed.Store(true)
	inf.log.wake()
	if l.resync > 0 {
		inf.resyncScheduleChanged()
	}
}

// processLoop pops the queue until it is closed or ctx is done.
func (inf *Informer[T]) processLoop(ctx context.Context) {
	for {
		err := inf.queue.Pop(ctx, inf.processFn)
		if ctx.Err() != nil || errors.Is(err, cache.ErrClosed) {
			return
		}
		inf.lookAgain()
		inf.checkSynced()
		if err != nil {
			inf.report(fmt.Errorf("%s: %w", inf.name, err))
		}
	}
}

// process applies one key's deltas to the indexer and appends the
// notifications they make, under mu. It keeps the delta objects, never the
// deltas slice, which the queue reuses after the call.
func (inf *Informer[T]) process(key string, deltas cache.Deltas[T]) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	notify := len(inf.listeners) > 0
	initial := !inf.synced.Load()
	var err error
	for _, d := range deltas {
		if meta.IsNil(d.Object) {
			err = errors.Join(err, fmt.Errorf("%s %s: nil object", d.Type, key))
			continue
		}
		if d.Type == cache.Deleted {
			if _, _, derr := inf.indexer.DeleteByKey(key); derr != nil {
				err = errors.Join(err, fmt.Errorf("delete %s: %w", key, derr))
				continue
			}
			if inf.opts.Metrics != nil {
				inf.countEvent("delete")
			}
			if notify {
				inf.log.appendLocked(entry[T]{kind: entryDelete, obj: d.Object, flag: d.FinalStateUnknown, at: inf.now()})
			}
			continue
		}
		// The queue keyed the delta with the Indexer's key function
		// (both use the default), so key is the object's key.
		old, existed, uerr := inf.indexer.Put(key, d.Object)
		if uerr != nil {
			err = errors.Join(err, fmt.Errorf("store %s: %w", key, uerr))
			continue
		}
		if inf.opts.Metrics != nil {
			kind := "add"
			if existed {
				kind = "update"
			}
			inf.countEvent(kind)
		}
		switch {
		case !notify:
		case !existed:
			inf.log.appendLocked(entry[T]{kind: entryAdd, obj: d.Object, flag: initial, at: inf.now()})
		case inf.opts.SkipUnchangedUpdates && d.Type != cache.Sync &&
			old.GetObjectMeta().ResourceVersion == d.Object.GetObjectMeta().ResourceVersion:
		default:
			inf.log.appendLocked(entry[T]{kind: entryUpdate, old: old, obj: d.Object, at: inf.now()})
		}
	}
	drained := inf.drainedLocked()
	if inf.log.pendingLocked() >= publishBatch || drained {
		inf.log.publishLocked()
	}
	return err
}

// checkSynced marks the informer synced once the queue has delivered its
// first list. It is called after each Pop and after each Replace, since an
// empty first list syncs the queue without anything to pop.
func (inf *Informer[T]) checkSynced() {
	if inf.synced.Load() || !inf.queue.HasSynced() {
		return
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.synced.Load() {
		return
	}
	inf.log.publishLocked()
	inf.syncSeq.Store(inf.log.appended)
	inf.synced.Store(true)
	close(inf.syncedCh)
	inf.logSynced()
	for _, l := range inf.listeners {
		l.checkSynced()
	}
}

// recordReflectorError keeps e as the sync error while the informer has
// not synced, and reports it.
func (inf *Informer[T]) recordReflectorError(e *reflector.Error) {
	if !inf.HasSynced() {
		cause := e.Err
		if st := statusCause(e.Err); st != nil {
			cause = st
		}
		inf.errMu.Lock()
		inf.lastErr = fmt.Errorf("%s: %s: %w", inf.name, e.Op, cause)
		inf.errMu.Unlock()
	}
	inf.report(e)
}

// now returns the clock's time as a log timestamp.
func (inf *Informer[T]) now() int64 { return int64(inf.clock.Now().Sub(inf.epoch)) }

// report hands err to Options.OnError.
func (inf *Informer[T]) report(err error) {
	inf.logError(err)
	if inf.opts.OnError != nil {
		inf.opts.OnError(err)
	}
}

// typeName names T for messages: "ConfigMap" for *ConfigMap.
func typeName[T any]() string {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
