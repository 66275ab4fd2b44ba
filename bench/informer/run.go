package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/kubecache/kubecache/bench"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// config is what the command line asks for.
type config struct {
	server string
	mode   string
	// kind is the mode without its wire suffix (typed, unstructured,
	// metadata); wire is the suffix (-json, -protobuf) or -wire.
	kind       string
	wire       rest.Wire
	strip      bool
	watchList  bool
	relist     bool
	timeout    time.Duration
	syncHeap   bool
	comment    string
	cpuProfile string
	memProfile string
	// memProfileRate, when > 0, is runtime.MemProfileRate for the run:
	// 1 records every allocation, for exact heap profiles.
	memProfileRate int
}

// errUsage marks a bad command line; run exits 2 for it.
var errUsage = errors.New("usage")

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("informer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.server, "server", "", "replay server base URL (required)")
	fs.StringVar(&c.mode, "mode", "typed", "typed (a Pod struct), unstructured (meta.Unstructured) or metadata (meta.PartialObjectMetadata),\n"+
		"optionally with -json or -protobuf to force the wire format (typed-json)")
	wire := fs.String("wire", "auto", "auto (protobuf for typed and metadata, JSON for unstructured), json or protobuf; a mode's suffix wins")
	fs.BoolVar(&c.strip, "strip-managed-fields", false, "drop metadata.managedFields with a transform")
	fs.BoolVar(&c.watchList, "watchlist", false, "initial state through a streaming list (sendInitialEvents) instead of a paged LIST")
	fs.BoolVar(&c.relist, "relist", false, "after the events, force a relist with a 410 and measure the live heap at its peak")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Minute, "give up if the run has not completed by then")
	fs.BoolVar(&c.syncHeap, "sync-heap", true, "measure the live heap once synced")
	fs.StringVar(&c.comment, "comment", "", "free text copied into the result")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the run (start -> last event) to this file")
	fs.StringVar(&c.memProfile, "memprofile", "", "write a heap profile, taken once synced, to this file")
	fs.IntVar(&c.memProfileRate, "memprofilerate", 0, "bytes per sampled allocation in -memprofile (1: every allocation; 0: Go's default)")
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: %w", errUsage, err)
	}
	if c.server == "" {
		return c, fmt.Errorf("%w: -server is required", errUsage)
	}
	var err error
	if c.wire, err = rest.ParseWire(*wire); err != nil {
		return c, fmt.Errorf("%w: -wire: %w", errUsage, err)
	}
	kind, suffix, _ := strings.Cut(c.mode, "-")
	if suffix != "" {
		if c.wire, err = rest.ParseWire(suffix); err != nil || c.wire == rest.WireAuto {
			return c, fmt.Errorf("%w: -mode %q: the suffix must be -json or -protobuf", errUsage, c.mode)
		}
	}
	switch c.kind = kind; kind {
	case "typed", "unstructured", "metadata":
	default:
		return c, fmt.Errorf("%w: -mode %q: want typed, unstructured or metadata", errUsage, c.mode)
	}
	return c, nil
}

// run is the command: it returns the exit code (0 ok, 1 measured but not
// ok or failed, 2 bad usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, err)
		}
		return 2
	}
	if c.memProfileRate > 0 {
		runtime.MemProfileRate = c.memProfileRate
	}
	res := result{Impl: "kubecache", Mode: c.mode, Strip: c.strip, WatchList: c.watchList, Comment: c.comment}
	res.Env = map[string]string{"go": runtime.Version(), "gomaxprocs": fmt.Sprint(runtime.GOMAXPROCS(0)),
		"gogc": os.Getenv("GOGC"), "gomemlimit": os.Getenv("GOMEMLIMIT")}
	switch c.kind {
	case "typed":
		err = measure[*bench.Pod](ctx, c, &res)
	case "unstructured":
		err = measure[*meta.Unstructured](ctx, c, &res)
	case "metadata":
		err = measure[*meta.PartialObjectMetadata](ctx, c, &res)
	}
	if err != nil {
		res.Error = err.Error()
		res.OK = false
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		fmt.Fprintln(stderr, "encode result:", merr)
		return 1
	}
	fmt.Fprintln(stdout, string(b))
	if !res.OK {
		fmt.Fprintln(stderr, "not ok:", res.Error)
		return 1
	}
	return 0
}

// measure runs one informer of T against the server and fills res.
func measure[T meta.Object](ctx context.Context, c config, res *result) error {
	info, err := fetchInfo(c.server)
	if err != nil {
		return fmt.Errorf("replay info: %w", err)
	}
	res.Pods, res.Events = info.Pods, info.Events
	stats0, err := fetchStats(c.server)
	if err != nil {
		return fmt.Errorf("replay stats: %w", err)
	}

	client, err := rest.NewClient(&rest.Config{Host: c.server, QPS: -1})
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer client.CloseIdleConnections()
	lw, err := reflector.NewListWatch[T](client, reflector.Source{Resource: "pods", Wire: c.wire})
	if err != nil {
		return err
	}
	probe := newRelistProbe(res)
	rl := newRelister(lw, info.FinalRV, probe.listed)
	cnt := newCounter(int64(info.Events))
	inf, reg, err := newCountingInformer[T](rl, c, probe, cnt)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	var m marks
	m.heap0 = liveHeap()
	res.HeapBaseMB = float64(m.heap0) / (1 << 20)
	m.cpu0, _ = rusage()
	stopProfile, err := startCPUProfile(c.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	m.start = time.Now()
	cnt.start = m.start
	runCtx, stopInformer := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(runCtx) })
	defer func() {
		stopInformer()
		wg.Wait()
	}()

	if err := m.awaitSync(ctx, c.timeout, inf, reg); err != nil {
		return err
	}
	if err := m.measureSyncHeap(c, cnt, info.Pods, res); err != nil {
		return err
	}
	select {
	case <-cnt.done:
	case <-ctx.Done():
		res.Counts = cnt.counts()
		return fmt.Errorf("only %d of %d watch events delivered within %v", cnt.posted(), info.Events, c.timeout)
	}
	m.cpuEnd, _ = rusage()
	m.last = cnt.lastAt()
	stopProfile()

	m.heapEnd = liveHeap()
	m.live = inf.Indexer().Len()
	m.wall = time.Since(m.start)
	_, m.maxRSS = rusage()
	res.Counts = cnt.counts()

	if c.relist {
		if err := probe.run(ctx, rl, c.timeout, m.heap0, m.heapEnd); err != nil {
			return err
		}
	}
	runtime.KeepAlive(inf)

	if stats1, err := fetchStats(c.server); err == nil {
		res.Server = statsDelta(stats0, stats1)
		res.Wire = wireOf(res.Server)
	}
	m.fill(res, info, cnt)

	want := counts{Initial: int64(info.Pods), Adds: int64(info.Added), Updates: int64(info.Modified), Deletes: int64(info.Deleted)}
	res.OK = res.Counts == want && m.live == info.LiveAfter
	if !res.OK {
		return fmt.Errorf("mismatch: counts %+v want %+v, live %d want %d", res.Counts, want, m.live, info.LiveAfter)
	}
	return nil
}

// newCountingInformer returns the informer of T over rl, configured by c,
// with the relist probe on its reflector's trace and cnt counting every
// notification of its one handler.
func newCountingInformer[T meta.Object](rl *relister[T], c config, probe *relistProbe, cnt *counter) (*informer.Informer[T], *informer.Registration[T], error) {
	opts := informer.Options[T]{Name: "pods"}
	opts.Reflector.DisableStreamingList = !c.watchList
	opts.Reflector.Trace = probe.trace
	if c.strip {
		opts.Transform = informer.DropManagedFields[T]()
	}
	inf, err := informer.New[T](rl, opts)
	if err != nil {
		return nil, nil, err
	}
	reg, err := inf.AddEventHandler(informer.HandlerFuncs[T]{
		AddFunc: func(_ T, initial bool) {
			if initial {
				cnt.onInitial()
			} else {
				cnt.onAdd()
			}
		},
		UpdateFunc: func(_, _ T) { cnt.onUpdate() },
		DeleteFunc: func(_ T, _ bool) { cnt.onDelete() },
	}, informer.HandlerOptions{Name: "counter"})
	if err != nil {
		return nil, nil, err
	}
	return inf, reg, nil
}

// startCPUProfile starts a CPU profile into path, if one is asked for, and
// returns the function that stops it (safe to call more than once).
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			f.Close()
		})
	}, nil
}

// marks are the instants, CPU times and heap sizes measure takes along the
// run.
type marks struct {
	heap0, heapEnd      uint64
	cpu0, cpuSync       cpuTime
	cpuWatch0, cpuEnd   cpuTime
	gcCPU               cpuTime
	start               time.Time
	tSync, tHandlerSync time.Duration
	last, wall          time.Duration
	live                int
	maxRSS              int64
}

// awaitSync waits for the informer and then its handler to sync, and
// marks when each did.
func (m *marks) awaitSync(ctx context.Context, timeout time.Duration, inf syncer, reg handlerSyncer) error {
	select {
	case <-inf.Synced():
	case <-ctx.Done():
		return fmt.Errorf("informer did not sync within %v: %w", timeout, errors.Join(ctx.Err(), inf.SyncError()))
	}
	m.tSync = time.Since(m.start)
	select {
	case <-reg.Synced():
	case <-ctx.Done():
		return fmt.Errorf("handler did not sync within %v: %w", timeout, ctx.Err())
	}
	m.tHandlerSync = time.Since(m.start)
	m.cpuSync, _ = rusage()
	return nil
}

// syncer and handlerSyncer are what awaitSync needs of an informer and of
// a handler's registration.
type (
	syncer interface {
		Synced() <-chan struct{}
		SyncError() error
	}
	handlerSyncer interface{ Synced() <-chan struct{} }
)

// measureSyncHeap measures the live heap right after the sync (with
// -sync-heap), writes the heap profile if asked, and sets the CPU the
// measurement's garbage collections took aside so the watch phase is not
// charged for it.
func (m *marks) measureSyncHeap(c config, cnt *counter, pods int, res *result) error {
	res.SyncHeapClean = true
	if c.syncHeap {
		before := cnt.posted()
		heapSync := liveHeap()
		res.SyncHeapClean = cnt.posted() == before && before == 0
		res.HeapSyncBytesPerObj = (float64(heapSync) - float64(m.heap0)) / float64(max(pods, 1))
		if c.memProfile != "" {
			if err := writeHeapProfile(c.memProfile); err != nil {
				return err
			}
		}
		after, _ := rusage()
		m.gcCPU = after.sub(m.cpuSync)
	}
	m.cpuWatch0 = m.cpuSync.add(m.gcCPU)
	return nil
}

// fill writes the run's figures into res.
func (m *marks) fill(res *result, info replayInfo, cnt *counter) {
	res.SyncMS = ms(m.tSync)
	res.HandlerSyncMS = ms(m.tHandlerSync)
	if info.Events > 0 {
		res.EventsMS = ms(m.last - cnt.firstAt())
		if res.EventsMS > 0 {
			res.EventsPerSec = float64(info.Events) / (res.EventsMS / 1000)
		}
		res.SyncToLastEventMS = ms(m.last - m.tHandlerSync)
	}
	res.LiveObjects = m.live
	res.HeapEndBytesPerObj = (float64(m.heapEnd) - float64(m.heap0)) / float64(max(m.live, 1))
	total := m.cpuEnd.sub(m.cpu0).sub(m.gcCPU)
	res.CPUUserMS, res.CPUSysMS, res.CPUTotalMS = ms(total.user), ms(total.sys), ms(total.total())
	res.CPUSyncMS = ms(m.cpuSync.sub(m.cpu0).total())
	res.CPUWatchMS = ms(m.cpuEnd.sub(m.cpuWatch0).total())
	res.CPUSyncUSPerObj = res.CPUSyncMS * 1000 / float64(max(info.Pods, 1))
	res.CPUWatchUSPerEvt = res.CPUWatchMS * 1000 / float64(max(info.Events, 1))
	res.RSSPeakMB = float64(m.maxRSS) / (1 << 20)
	res.WallMS = ms(m.wall)
}

// relistProbe measures the relist that measure forces at the end of a run
// with -relist: the live heap at the end of its LIST (listed, called by
// the relister) and, from the reflector's trace, how long it took and how
// many objects it reused.
type relistProbe struct {
	res  *result
	done chan struct{}
	once sync.Once

	// mu guards the fields below and the relist figures of res.
	mu        sync.Mutex
	heap      uint64
	started   time.Time
	relisting bool
}

func newRelistProbe(res *result) *relistProbe {
	return &relistProbe{res: res, done: make(chan struct{})}
}

// listed records the live heap at the end of the relist's LIST.
func (p *relistProbe) listed() {
	h := liveHeap()
	p.mu.Lock()
	p.heap = h
	p.mu.Unlock()
}

// trace is the reflector's Trace: the Replaced of the forced relist ends
// it.
func (p *relistProbe) trace(ev reflector.TraceEvent) {
	r, ok := ev.(reflector.Replaced)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.relisting {
		return
	}
	p.res.RelistMS = ms(time.Since(p.started))
	p.res.RelistObjects, p.res.RelistReused = r.Objects, r.Reused
	p.once.Do(func() { close(p.done) })
}

// run forces the relist, waits for it, and reports its peak heap as a
// ratio of the steady state's (heapEnd, both above heap0).
func (p *relistProbe) run(ctx context.Context, rl interface{ expire() }, timeout time.Duration, heap0, heapEnd uint64) error {
	p.mu.Lock()
	p.relisting, p.started = true, time.Now()
	p.mu.Unlock()
	rl.expire()
	select {
	case <-p.done:
	case <-ctx.Done():
		return fmt.Errorf("relist did not complete within %v", timeout)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if heapEnd > heap0 && p.heap > heap0 {
		p.res.RelistPeakHeapRatio = float64(p.heap-heap0) / float64(heapEnd-heap0)
	}
	return nil
}

// writeHeapProfile writes the current heap profile to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("memprofile: %w", err)
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("memprofile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("memprofile: %w", err)
	}
	return nil
}
