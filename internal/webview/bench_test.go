package webview_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/internal/webview"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/watch"
)

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// median returns the middle of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// burst is the size of one burst of events.
const burst = 10000

// burstInformer is an informer whose watch a benchmark feeds directly, and
// a handler that counts what it receives.
type burstInformer struct {
	inf     *informer.Informer[*ConfigMap]
	watcher chan *watch.FakeWatcher[*ConfigMap]
	seen    atomic.Int64
	// reached is signalled when seen reaches want.
	want    atomic.Int64
	reached chan struct{}
}

// newBurstInformer runs an informer over an empty list and a fake watch;
// trace and applied, when set, are its reflector's hooks.
func newBurstInformer(b *testing.B, ctx context.Context, trace func(reflector.TraceEvent), applied func(reflector.EventApplied)) *burstInformer {
	bi := &burstInformer{watcher: make(chan *watch.FakeWatcher[*ConfigMap], 1), reached: make(chan struct{}, 1)}
	lw := &reflector.ListWatch[*ConfigMap]{
		ListFunc: func(context.Context, reflector.ListOptions, reflector.Known[*ConfigMap], func(*ConfigMap) error) (meta.ListMeta, error) {
			return meta.ListMeta{ResourceVersion: "1"}, nil
		},
		WatchFunc: func(context.Context, reflector.ListOptions, reflector.Known[*ConfigMap]) (watch.Interface[*ConfigMap], error) {
			w := watch.NewFake[*ConfigMap]()
			bi.watcher <- w
			return w, nil
		},
	}
	var err error
	bi.inf, err = informer.New(lw, informer.Options[*ConfigMap]{
		Name:      "bench",
		Reflector: reflector.Options{DisableStreamingList: true, Trace: trace, Applied: applied, MinWatchTimeout: time.Hour},
	})
	if err != nil {
		b.Fatal(err)
	}
	count := func() {
		if bi.seen.Add(1) == bi.want.Load() {
			bi.reached <- struct{}{}
		}
	}
	if _, err := bi.inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc:    func(*ConfigMap, bool) { count() },
		UpdateFunc: func(_, _ *ConfigMap) { count() },
	}, informer.HandlerOptions{}); err != nil {
		b.Fatal(err)
	}
	return bi
}

// BenchmarkBurst measures what the web view costs an informer: each
// iteration sends a burst of 10,000 watch events through three informers
// — one without a trace hook, one with a Trace hook that does nothing
// (what a trace hook costs the reflector: it allocates a TraceEvent per
// event), and one wired to a view (Trace and Applied) that a page is
// reading (an SSE client draining its frames, ten a second) — and
// measures each until its handler has every
// event: the wall time, and the CPU time the whole process spent (which a
// loaded machine disturbs less). It reports each per event, and the
// overheads in percent: the view's against no hook (%cpu-overhead) and
// against the empty hook (%cpu-view), each the median over the
// iterations of the ratio within one iteration, whose three bursts run in
// a rotating order.
func BenchmarkBurst(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	view, err := webview.New(webview.Options{})
	if err != nil {
		b.Fatal(err)
	}
	arms := []*burstInformer{
		newBurstInformer(b, ctx, nil, nil),
		newBurstInformer(b, ctx, func(reflector.TraceEvent) {}, nil),
		newBurstInformer(b, ctx, view.Trace, view.Applied),
	}
	webview.Attach(view, arms[2].inf)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for _, bi := range arms {
		wg.Go(func() { _ = bi.inf.Run(ctx) })
	}
	frames := readFrames(b, ctx, &wg, view)
	watchers := make([]*watch.FakeWatcher[*ConfigMap], len(arms))
	for i, bi := range arms {
		watchers[i] = <-bi.watcher
	}

	objs := make([]*ConfigMap, burst)
	rv := 1
	fill := func() {
		for i := range objs {
			rv++
			objs[i] = &ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "bench", Name: "o-" + strconv.Itoa(i%1000), ResourceVersion: strconv.Itoa(rv)}}
		}
	}
	run := func(arm int) cost {
		bi := arms[arm]
		bi.want.Store(bi.seen.Load() + burst)
		start, cpu := time.Now(), cpuTime(b)
		for _, o := range objs {
			watchers[arm].Modify(o)
		}
		<-bi.reached
		return cost{wall: time.Since(start), cpu: cpuTime(b) - cpu}
	}
	sums := make([]cost, len(arms))
	var wallRatios, cpuRatios, viewRatios []float64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		fill()
		b.StartTimer()
		c := make([]cost, len(arms))
		for k := range arms {
			arm := (i + k) % len(arms)
			c[arm] = run(arm)
			sums[arm].wall += c[arm].wall
			sums[arm].cpu += c[arm].cpu
		}
		wallRatios = append(wallRatios, float64(c[2].wall)/float64(c[0].wall))
		cpuRatios = append(cpuRatios, float64(c[2].cpu)/float64(max(c[0].cpu, 1)))
		viewRatios = append(viewRatios, float64(c[2].cpu)/float64(max(c[1].cpu, 1)))
	}
	b.StopTimer()
	n := float64(b.N * burst)
	for i, name := range []string{"off", "hook", "view"} {
		b.ReportMetric(float64(sums[i].wall)/n, "wall-ns/event-"+name)
		b.ReportMetric(float64(sums[i].cpu)/n, "cpu-ns/event-"+name)
	}
	b.ReportMetric(100*(median(wallRatios)-1), "%wall-overhead")
	b.ReportMetric(100*(median(cpuRatios)-1), "%cpu-overhead")
	b.ReportMetric(100*(median(viewRatios)-1), "%cpu-view")
	if frames.Load() == 0 {
		b.Fatal("the page read no frame")
	}
}

// cost is what one burst took.
type cost struct{ wall, cpu time.Duration }

// readFrames serves view and reads its event stream, as a page would,
// until ctx ends; it counts the frames.
func readFrames(b *testing.B, ctx context.Context, wg *sync.WaitGroup, view *webview.View) *atomic.Int64 {
	srv := httptest.NewServer(view.Handler())
	b.Cleanup(srv.Close)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	frames := &atomic.Int64{}
	wg.Go(func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if len(sc.Bytes()) > 0 && sc.Bytes()[0] == 'd' {
				frames.Add(1)
			}
		}
	})
	return frames
}
