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
	server     string
	mode       string
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
	fs.StringVar(&c.mode, "mode", "typed", "typed (a Pod struct), unstructured (meta.Unstructured) or metadata (meta.PartialObjectMetadata)")
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
	switch c.mode {
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
	switch c.mode {
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
	lw, err := reflector.NewListWatch[T](client, reflector.Source{Resource: "pods"})
	if err != nil {
		return err
	}

	// The relist hook measures the live heap at the end of the relist's
	// LIST; replaced reports the relist's figures from the reflector's
	// trace.
	var (
		relistMu      sync.Mutex
		relistHeap    uint64
		relistDone    = make(chan struct{})
		relistOnce    sync.Once
		relistStarted time.Time
		relisting     bool
	)
	rl := newRelister(lw, info.FinalRV, func() {
		h := liveHeap()
		relistMu.Lock()
		relistHeap = h
		relistMu.Unlock()
	})
	opts := informer.Options[T]{Name: "pods"}
	opts.Reflector.DisableStreamingList = !c.watchList
	opts.Reflector.Trace = func(ev reflector.TraceEvent) {
		r, ok := ev.(reflector.Replaced)
		if !ok {
			return
		}
		relistMu.Lock()
		defer relistMu.Unlock()
		if !relisting {
			return
		}
		res.RelistMS = ms(time.Since(relistStarted))
		res.RelistObjects, res.RelistReused = r.Objects, r.Reused
		relistOnce.Do(func() { close(relistDone) })
	}
	if c.strip {
		opts.Transform = informer.DropManagedFields[T]()
	}
	inf, err := informer.New[T](rl, opts)
	if err != nil {
		return err
	}
	cnt := newCounter(int64(info.Events))
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
		return err
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	heap0 := liveHeap()
	res.HeapBaseMB = float64(heap0) / (1 << 20)
	cpu0, _ := rusage()
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return fmt.Errorf("cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	cnt.start = start
	runCtx, stopInformer := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(runCtx) })
	defer func() {
		stopInformer()
		wg.Wait()
	}()

	select {
	case <-inf.Synced():
	case <-ctx.Done():
		return fmt.Errorf("informer did not sync within %v: %w", c.timeout, errors.Join(ctx.Err(), inf.SyncError()))
	}
	tSync := time.Since(start)
	select {
	case <-reg.Synced():
	case <-ctx.Done():
		return fmt.Errorf("handler did not sync within %v: %w", c.timeout, ctx.Err())
	}
	tHandlerSync := time.Since(start)
	cpuSync, _ := rusage()

	var gcCPU cpuTime
	res.SyncHeapClean = true
	if c.syncHeap {
		before := cnt.posted()
		heapSync := liveHeap()
		res.SyncHeapClean = cnt.posted() == before && before == 0
		res.HeapSyncBytesPerObj = (float64(heapSync) - float64(heap0)) / float64(max(info.Pods, 1))
		if c.memProfile != "" {
			if err := writeHeapProfile(c.memProfile); err != nil {
				return err
			}
		}
		after, _ := rusage()
		gcCPU = after.sub(cpuSync)
	}
	cpuWatch0 := cpuSync.add(gcCPU)

	select {
	case <-cnt.done:
	case <-ctx.Done():
		res.Counts = cnt.counts()
		return fmt.Errorf("only %d of %d watch events delivered within %v", cnt.posted(), info.Events, c.timeout)
	}
	cpuEnd, _ := rusage()
	last := cnt.lastAt()
	if c.cpuProfile != "" {
		pprof.StopCPUProfile()
	}

	heapEnd := liveHeap()
	live := inf.Indexer().Len()
	wall := time.Since(start)
	_, maxRSS := rusage()
	res.Counts = cnt.counts()

	if c.relist {
		relistMu.Lock()
		relisting, relistStarted = true, time.Now()
		relistMu.Unlock()
		rl.expire()
		select {
		case <-relistDone:
		case <-ctx.Done():
			return fmt.Errorf("relist did not complete within %v", c.timeout)
		}
		relistMu.Lock()
		if heapEnd > heap0 && relistHeap > heap0 {
			res.RelistPeakHeapRatio = float64(relistHeap-heap0) / float64(heapEnd-heap0)
		}
		relistMu.Unlock()
	}
	runtime.KeepAlive(inf)

	if stats1, err := fetchStats(c.server); err == nil {
		res.Server = statsDelta(stats0, stats1)
	}

	res.SyncMS = ms(tSync)
	res.HandlerSyncMS = ms(tHandlerSync)
	if info.Events > 0 {
		res.EventsMS = ms(last - cnt.firstAt())
		if res.EventsMS > 0 {
			res.EventsPerSec = float64(info.Events) / (res.EventsMS / 1000)
		}
		res.SyncToLastEventMS = ms(last - tHandlerSync)
	}
	res.LiveObjects = live
	res.HeapEndBytesPerObj = (float64(heapEnd) - float64(heap0)) / float64(max(live, 1))
	total := cpuEnd.sub(cpu0).sub(gcCPU)
	res.CPUUserMS, res.CPUSysMS, res.CPUTotalMS = ms(total.user), ms(total.sys), ms(total.total())
	res.CPUSyncMS = ms(cpuSync.sub(cpu0).total())
	res.CPUWatchMS = ms(cpuEnd.sub(cpuWatch0).total())
	res.CPUSyncUSPerObj = res.CPUSyncMS * 1000 / float64(max(info.Pods, 1))
	res.CPUWatchUSPerEvt = res.CPUWatchMS * 1000 / float64(max(info.Events, 1))
	res.RSSPeakMB = float64(maxRSS) / (1 << 20)
	res.WallMS = ms(wall)

	want := counts{Initial: int64(info.Pods), Adds: int64(info.Added), Updates: int64(info.Modified), Deletes: int64(info.Deleted)}
	res.OK = res.Counts == want && live == info.LiveAfter
	if !res.OK {
		return fmt.Errorf("mismatch: counts %+v want %+v, live %d want %d", res.Counts, want, live, info.LiveAfter)
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
