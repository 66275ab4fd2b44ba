package reflector

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// The chaos test: concurrent writers create, update and delete ConfigMaps
// while faults fire at random; after quiescence the store must equal a
// fresh list from the server, and no object's resourceVersion may ever have
// gone backwards in it. Each schedule draws its options, its initial state
// and its fault plan from a seed, printed on failure so it can be replayed:
//
//	KUBECACHE_CHAOS_SEED=<seed> KUBECACHE_CHAOS_BUDGET=1ns go test -run TestChaos ./reflector/
//
// The test runs schedules until its time budget is spent:
// KUBECACHE_CHAOS_BUDGET (a Go duration; default 20s, `make test` sets 60s, `make chaos` sets
// more), and reports how many ran and how many faults of each kind fired.

// chaosFault is one kind of fault the plan can fire.
type chaosFault string

const (
	faultCutAbort        chaosFault = "cut-abort"
	faultCutMidFrame     chaosFault = "cut-mid-frame"
	faultCutClean        chaosFault = "cut-clean"
	faultRestart         chaosFault = "restart"
	faultRestartCompact  chaosFault = "restart-compact"
	faultCompact         chaosFault = "compact"
	faultWatch410        chaosFault = "watch-410"
	faultWatch429        chaosFault = "watch-429"
	faultList429         chaosFault = "list-429"
	faultWatch5xx        chaosFault = "watch-5xx-burst"
	faultList5xx         chaosFault = "list-5xx-burst"
	faultWatch403        chaosFault = "watch-403"
	faultWatch404        chaosFault = "watch-404"
	faultStall           chaosFault = "stall"
	faultDelayWatch      chaosFault = "delay-watch"
	faultExpireContinue  chaosFault = "expire-continue"
	faultMalformed       chaosFault = "malformed-frame"
	faultNoInitialEnd    chaosFault = "withhold-initial-events-end"
	faultIgnoreLimit     chaosFault = "ignore-limit"
	faultStaleFirstList  chaosFault = "stale-first-list"
	faultRejectStreaming chaosFault = "reject-streaming-list"
)

// plannedFaults are the kinds the plan draws from while writers run.
var plannedFaults = []chaosFault{
	faultCutAbort, faultCutMidFrame, faultCutClean, faultRestart, faultRestartCompact, faultCompact,
	faultWatch410, faultWatch429, faultList429, faultWatch5xx, faultList5xx, faultWatch403, faultWatch404,
	faultStall, faultDelayWatch, faultExpireContinue, faultMalformed, faultNoInitialEnd, faultIgnoreLimit,
}

// chaosStep is one fault at an offset from the start of the writes.
type chaosStep struct {
	at    time.Duration
	fault chaosFault
}

// chaosSchedule is everything a seed decides.
type chaosSchedule struct {
	seed      uint64
	opts      Options
	initial   int
	writers   int
	duration  time.Duration
	plan      []chaosStep
	setupOnly []chaosFault // faults in place before the reflector starts
}

func (s chaosSchedule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed=%d streaming=%v pageSize=%d watchTimeout=%v initial=%d writers=%d duration=%v setup=%v plan:",
		s.seed, !s.opts.DisableStreamingList, s.opts.PageSize, s.opts.MinWatchTimeout, s.initial, s.writers, s.duration, s.setupOnly)
	for _, st := range s.plan {
		fmt.Fprintf(&b, " %v:%s", st.at.Round(time.Millisecond), st.fault)
	}
	return b.String()
}

// newSchedule draws a schedule from seed.
func newSchedule(seed uint64) chaosSchedule {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	s := chaosSchedule{
		seed:     seed,
		initial:  rng.IntN(12),
		writers:  1 + rng.IntN(3),
		duration: time.Duration(600+rng.IntN(900)) * time.Millisecond,
	}
	timeout := time.Duration(1+rng.IntN(3)) * time.Second
	s.opts = Options{
		DisableStreamingList: rng.IntN(3) == 0,
		PageSize:             []int64{1, 2, 3, 5, 500, -1}[rng.IntN(6)],
		MinWatchTimeout:      timeout,
		MaxWatchTimeout:      timeout + time.Second,
		InitialEventsTimeout: 300 * time.Millisecond,
		Backoff:              Backoff{Initial: 2 * time.Millisecond, Max: 40 * time.Millisecond, ResetAfter: 500 * time.Millisecond},
	}
	if rng.IntN(4) == 0 {
		s.setupOnly = append(s.setupOnly, faultStaleFirstList)
	}
	if rng.IntN(5) == 0 {
		s.setupOnly = append(s.setupOnly, faultRejectStreaming)
	}
	n := 3 + rng.IntN(10)
	for range n {
		s.plan = append(s.plan, chaosStep{
			at:    time.Duration(rng.Int64N(int64(s.duration))),
			fault: plannedFaults[rng.IntN(len(plannedFaults))],
		})
	}
	sort.Slice(s.plan, func(i, j int) bool { return s.plan[i].at < s.plan[j].at })
	return s
}

// chaosBudget reads KUBECACHE_CHAOS_BUDGET.
func chaosBudget(t *testing.T) time.Duration {
	v := os.Getenv("KUBECACHE_CHAOS_BUDGET")
	if v == "" {
		if testing.Short() {
			return 3 * time.Second
		}
		return 20 * time.Second
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "KUBECACHE_CHAOS_BUDGET")
	return d
}

// chaosSeed reads KUBECACHE_CHAOS_SEED, or draws one.
func chaosSeed(t *testing.T) uint64 {
	v := os.Getenv("KUBECACHE_CHAOS_SEED")
	if v == "" {
		return rand.Uint64() >> 1
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	require.NoError(t, err, "KUBECACHE_CHAOS_SEED")
	return seed
}

func TestChaos(t *testing.T) {
	budget := chaosBudget(t)
	base := chaosSeed(t)
	fired := map[chaosFault]int{}
	start := time.Now()
	schedules := 0
	for i := uint64(0); schedules == 0 || time.Since(start) < budget; i++ {
		s := newSchedule(base + i)
		ok := t.Run(fmt.Sprintf("seed=%d", s.seed), func(t *testing.T) {
			t.Logf("schedule: %v", s)
			runSchedule(t, s, fired)
		})
		schedules++
		if !ok {
			t.Logf("replay: KUBECACHE_CHAOS_SEED=%d KUBECACHE_CHAOS_BUDGET=1ns go test -race -run TestChaos ./reflector/", s.seed)
			break
		}
	}
	kinds := make([]string, 0, len(fired))
	total := 0
	for k, n := range fired {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
		total += n
	}
	sort.Strings(kinds)
	t.Logf("chaos: %d schedules in %v from seed %d; %d faults fired: %s",
		schedules, time.Since(start).Round(time.Millisecond), base, total, strings.Join(kinds, " "))
}

// runSchedule runs one schedule and checks its property.
func runSchedule(t *testing.T, s chaosSchedule, fired map[chaosFault]int) {
	rng := rand.New(rand.NewPCG(s.seed^0xfeed, s.seed))
	var staleRV int64
	l := startLoopback(t, fakeapiserver.Options{WatchQueueLength: 50}, s.opts, func(l *loopback) {
		for i := range s.initial {
			l.create(fmt.Sprintf("c%02d", i), "init")
		}
		for _, f := range s.setupOnly {
			switch f {
			case faultStaleFirstList:
				// The first list at rv=0 is answered from a snapshot
				// older than the writes that follow.
				staleRV = l.srv.ResourceVersion()
				for i := range s.initial {
					l.update(fmt.Sprintf("c%02d", i), "after-snapshot")
				}
				l.srv.ServeStaleLists(staleRV)
			case faultRejectStreaming:
				l.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Code: 422})
			}
			fired[f]++
		}
	})

	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), s.duration)
	defer cancel()
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := range s.writers {
		wrng := rand.New(rand.NewPCG(s.seed, uint64(w)))
		wg.Go(func() { chaosWriter(ctx, l, wrng, &writes) })
	}
	var firedNow []chaosFault
	wg.Go(func() {
		for _, st := range s.plan {
			timer := time.NewTimer(time.Until(begin.Add(st.at)))
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
			}
			fire(l, st.fault, rng)
			firedNow = append(firedNow, st.fault)
		}
	})
	wg.Wait()
	for _, f := range firedNow {
		fired[f]++
	}

	// Quiescence: no more faults or writes; the reflector must converge.
	l.srv.ClearFaults()
	l.srv.StopStaleLists()
	l.proxy.dropInitialEnd.Store(false)
	l.proxy.stripLimit.Store(false)
	l.proxy.corruptAfter.Store(nil)
	l.waitConverged()
	t.Logf("%d writes; %d errors reported; %d relists", writes.Load(), len(l.errors()), len(tracesOf[Replaced](l)))
}

// chaosWriter creates, updates and deletes ConfigMaps c00..c14 until ctx
// ends. Errors are expected (conflicts, missing objects, dropped
// connections) and ignored: the server's state is the truth checked later.
func chaosWriter(ctx context.Context, l *loopback, rng *rand.Rand, writes *atomic.Int64) {
	tick := time.NewTicker(3 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		name := fmt.Sprintf("c%02d", rng.IntN(15))
		v := strconv.Itoa(rng.IntN(1000))
		wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var err error
		switch rng.IntN(4) {
		case 0:
			err = l.direct.Post().Namespace(testNamespace).Resource("configmaps").Body(configMap(name, v)).Do(wctx).Error()
		case 1, 2:
			err = l.direct.Put().Namespace(testNamespace).Resource("configmaps").Name(name).Body(configMap(name, v)).Do(wctx).Error()
		case 3:
			err = l.direct.Delete().Namespace(testNamespace).Resource("configmaps").Name(name).Do(wctx).Error()
		}
		cancel()
		if err == nil {
			writes.Add(1)
		}
	}
}

// fire injects one fault.
func fire(l *loopback, f chaosFault, rng *rand.Rand) {
	watchOf := fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}
	listOf := fakeapiserver.Match{Verb: "list", Resource: "configmaps"}
	switch f {
	case faultCutAbort:
		l.srv.CutWatches(configMaps, fakeapiserver.CutAbort)
	case faultCutMidFrame:
		l.srv.CutWatches(configMaps, fakeapiserver.CutMidFrame)
	case faultCutClean:
		l.srv.CutWatches(configMaps, fakeapiserver.CutClean)
	case faultRestart:
		l.srv.Restart(false)
	case faultRestartCompact:
		l.srv.Restart(true)
	case faultCompact:
		l.srv.CompactNow()
	case faultWatch410:
		l.srv.FailNext(fakeapiserver.FailRule{Match: watchOf, Code: 410})
		l.srv.CutWatches(configMaps, fakeapiserver.CutClean)
	case faultWatch429:
		l.srv.FailNext(fakeapiserver.FailRule{Match: watchOf, Code: 429, RetryAfterSeconds: 1, PlainText: rng.IntN(2) == 0})
		l.srv.CutWatches(configMaps, fakeapiserver.CutClean)
	case faultList429:
		l.srv.FailNext(fakeapiserver.FailRule{Match: listOf, Code: 429, RetryAfterSeconds: 1})
	case faultWatch5xx:
		l.srv.FailNext(fakeapiserver.FailRule{Match: watchOf, Code: []int{500, 503}[rng.IntN(2)], Count: 1 + rng.IntN(4)})
		l.srv.CutWatches(configMaps, fakeapiserver.CutAbort)
	case faultList5xx:
		l.srv.FailNext(fakeapiserver.FailRule{Match: listOf, Code: []int{500, 503}[rng.IntN(2)], Count: 1 + rng.IntN(4)})
	case faultWatch403:
		l.srv.FailNext(fakeapiserver.FailRule{Match: watchOf, Code: 403})
		l.srv.CutWatches(configMaps, fakeapiserver.CutClean)
	case faultWatch404:
		l.srv.FailNext(fakeapiserver.FailRule{Match: watchOf, Code: 404})
		l.srv.CutWatches(configMaps, fakeapiserver.CutClean)
	case faultStall:
		l.srv.StallWatches(configMaps)
	case faultDelayWatch:
		l.srv.DelayNext(fakeapiserver.DelayRule{Match: watchOf, Delay: time.Duration(50+rng.IntN(250)) * time.Millisecond})
		l.srv.CutWatches(configMaps, fakeapiserver.CutAbort)
	case faultExpireContinue:
		l.srv.ExpireNextContinue(configMaps, 1, rng.IntN(2) == 0)
	case faultMalformed:
		marker := `"name":"c` + fmt.Sprintf("%02d", rng.IntN(15)) + `"`
		l.proxy.corruptAfter.Store(&marker)
	case faultNoInitialEnd:
		l.proxy.dropInitialEnd.Store(!l.proxy.dropInitialEnd.Load())
	case faultIgnoreLimit:
		l.proxy.stripLimit.Store(!l.proxy.stripLimit.Load())
	}
}
