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
// trace, when set, is its reflector's trace hook.
func newBurstInformer(b *testing.B, ctx context.Context, trace func(reflector.TraceEvent)) *burstInformer {
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
		Reflector: reflector.Options{DisableStreamingList: true, Trace: trace, MinWatchTimeout: time.Hour},
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
// iteration sends a burst of 10,000 watch events through two informers,
// one without the view and one wired to a view that a page is reading
// (an SSE client draining its frames, ten a second), and measures each
// until its handler has every event: the wall time, and the CPU time the
// whole process spent (which a loaded machine disturbs less). It reports
// both per event, and the view's overhead in percent of each: the median
// over the iterations of the ratio within each pair.
func BenchmarkBurst(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	view, err := webview.New(webview.Options{})
	if err != nil {
		b.Fatal(err)
	}
	off := newBurstInformer(b, ctx, nil)
	on := newBurstInformer(b, ctx, view.Trace)
	webview.Attach(view, on.inf)

	srv := httptest.NewServer(view.Handler())
	defer srv.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for _, bi := range []*burstInformer{off, on} {
		wg.Go(func() { _ = bi.inf.Run(ctx) })
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	frames := atomic.Int64{}
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
	wOff, wOn := <-off.watcher, <-on.watcher

	objs := make([]*ConfigMap, burst)
	rv := 1
	fill := func() {
		for i := range objs {
			rv++
			objs[i] = &ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "bench", Name: "o-" + strconv.Itoa(i%1000), ResourceVersion: strconv.Itoa(rv)}}
		}
	}
	type cost struct{ wall, cpu time.Duration }
	run := func(bi *burstInformer, w *watch.FakeWatcher[*ConfigMap]) cost {
		bi.want.Store(bi.seen.Load() + burst)
		start, cpu := time.Now(), cpuTime(b)
		for _, o := range objs {
			w.Modify(o)
		}
		<-bi.reached
		return cost{wall: time.Since(start), cpu: cpuTime(b) - cpu}
	}
	var sumOff, sumOn cost
	var wallRatios, cpuRatios []float64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		fill()
		b.StartTimer()
		// Alternate which goes first, so that neither always runs on
		// a warmer machine; compare within the pair, so that a load
		// spike on a shared machine moves both.
		var cOff, cOn cost
		if i%2 == 0 {
			cOff, cOn = run(off, wOff), run(on, wOn)
		} else {
			cOn, cOff = run(on, wOn), run(off, wOff)
		}
		sumOff.wall, sumOff.cpu = sumOff.wall+cOff.wall, sumOff.cpu+cOff.cpu
		sumOn.wall, sumOn.cpu = sumOn.wall+cOn.wall, sumOn.cpu+cOn.cpu
		wallRatios = append(wallRatios, float64(cOn.wall)/float64(cOff.wall))
		cpuRatios = append(cpuRatios, float64(cOn.cpu)/float64(max(cOff.cpu, 1)))
	}
	b.StopTimer()
	n := float64(b.N * burst)
	b.ReportMetric(float64(sumOff.wall)/n, "wall-ns/event-off")
	b.ReportMetric(float64(sumOn.wall)/n, "wall-ns/event-on")
	b.ReportMetric(float64(sumOff.cpu)/n, "cpu-ns/event-off")
	b.ReportMetric(float64(sumOn.cpu)/n, "cpu-ns/event-on")
	b.ReportMetric(100*(median(wallRatios)-1), "%wall-overhead")
	b.ReportMetric(100*(median(cpuRatios)-1), "%cpu-overhead")
	if frames.Load() == 0 {
		b.Fatal("the page read no frame")
	}
}
