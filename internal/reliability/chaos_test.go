package reliability_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/reliability"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// TestChaos runs a seeded fault plan for -chaos.duration against several
// reflectors and informers at once: rounds of random writes interleaved
// with random faults, each round ending with the faults healed and every
// client required to converge to a fresh list, with no resourceVersion
// ever going backwards anywhere. It prints the seed (rerun with
// -chaos.seed), the schedules (rounds) run, the faults injected by kind,
// the events the clients applied, the divergences (must be 0) and the
// longest time any round took to converge after its last fault.
func TestChaos(t *testing.T) {
	seed := *chaosSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("chaos: seed %d, duration %v (rerun: go test ./internal/reliability -run TestChaos -chaos.seed=%d)", seed, *chaosDuration, seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))

	e := newEnv(t, envOptions{server: fakeapiserver.Options{WatchQueueLength: 20, HistoryLimit: 500}, runFor: *chaosDuration})
	clients := []*subject{
		startWith[*meta.Unstructured](e, "reflector", "reflector-streaming", configMaps, reflector.Options{}, nil),
		startWith[*meta.Unstructured](e, "reflector", "reflector-paged", configMaps, reflector.Options{DisableStreamingList: true, PageSize: 3}, nil),
		startWith[*meta.Unstructured](e, "informer", "informer-streaming", configMaps, reflector.Options{}, nil),
		startWith[*meta.Unstructured](e, "informer", "informer-paged", configMaps, reflector.Options{DisableStreamingList: true, PageSize: 3}, nil),
	}
	exists := map[string]bool{}
	names := make([]string, 15)
	for i := range names {
		names[i] = fmt.Sprintf("chaos-%02d", i)
	}
	for _, n := range names[:5] {
		e.create(configMaps, n, "0")
		exists[n] = true
	}
	e.waitConverged(configMaps, clients...)

	injected := map[string]int{}
	w := &chaosWriter{e: e, rng: rng, names: names, exists: exists}
	faults := chaosFaults(e, rng)
	var rounds int
	var maxConverge time.Duration
	deadline := time.Now().Add(*chaosDuration)
	for rounds == 0 || time.Now().Before(deadline) {
		rounds++
		steps := 5 + rng.IntN(20)
		for range steps {
			if rng.IntN(3) == 0 {
				f := faults[rng.IntN(len(faults))]
				f.do()
				injected[f.name]++
			} else {
				w.write(t)
			}
		}
		// Heal: no fault left armed, held requests go, every client
		// deadline and streaming bound passes on the clients' clock.
		e.proxy.Disarm()
		e.srv.ClearFaults()
		e.clock.Step(2*reflector.DefaultMinWatchTimeout + 31*time.Second)
		d := e.waitConverged(configMaps, clients...)
		maxConverge = max(maxConverge, d)
	}

	total := 0
	kinds := make([]string, 0, len(injected))
	for k, n := range injected {
		total += n
		kinds = append(kinds, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(kinds)
	violations := e.mon.Violations()
	assert.Empty(t, violations, "resourceVersions went backwards")
	assert.NotContains(t, e.out.String(), testToken, "a credential appeared in the output")
	var relists, errs int
	for _, c := range clients {
		relists += c.rec.relists()
		errs += len(c.rec.errors())
	}
	tab := reliability.Table{Header: []string{"figure", "value"}, Rows: [][]string{
		{"seed", fmt.Sprint(seed)},
		{"duration", chaosDuration.String()},
		{"clients", fmt.Sprintf("%d (2 reflectors, 2 informers; streaming and paged lists)", len(clients))},
		{"schedules run (rounds of writes and faults, each healed and checked)", fmt.Sprint(rounds)},
		{"writes", fmt.Sprint(w.writes)},
		{"faults injected (armed; a proxy fault disarmed before any stream met it is counted here only)", fmt.Sprintf("%d: %s", total, strings.Join(kinds, ", "))},
		{"proxy faults that met a stream or request", fmt.Sprint(e.proxy.Counts())},
		{"events applied (store writes and notifications observed)", fmt.Sprint(e.mon.Observed())},
		{"errors reported by the clients", fmt.Sprint(errs)},
		{"relists", fmt.Sprint(relists)},
		{"divergences (resourceVersions going backwards)", fmt.Sprint(len(violations))},
		{"max time to converge after the last fault of a round", maxConverge.Round(time.Millisecond).String()},
	}}
	t.Logf("chaos figures:\n%s", tab.Markdown())
}

// chaosWriter makes TestChaos's random writes: a create for a name that
// does not exist, else a delete one time in four or a merge patch.
type chaosWriter struct {
	e      *env
	rng    *rand.Rand
	names  []string
	exists map[string]bool
	writes int
}

// write makes one random write; a conflict with the state it guessed
// (already exists, not found) is fine.
func (w *chaosWriter) write(t *testing.T) {
	e, n := w.e, w.names[w.rng.IntN(len(w.names))]
	var err error
	switch {
	case !w.exists[n]:
		_, err = e.write(func() error {
			return configMaps.on(e.direct.Post(), "").Body(object(configMaps, "ConfigMap", n, "c")).Do(e.ctx).Error()
		})
		w.exists[n] = err == nil || rest.IsAlreadyExists(err)
	case w.rng.IntN(4) == 0:
		_, err = e.write(func() error { return configMaps.on(e.direct.Delete(), n).Do(e.ctx).Error() })
		w.exists[n] = !(err == nil || rest.IsNotFound(err))
	default:
		_, err = e.write(func() error {
			return configMaps.on(e.direct.Patch(rest.MergePatchType), n).Body(map[string]any{"data": map[string]string{"v": fmt.Sprint(w.rng.Uint32())}}).Do(e.ctx).Error()
		})
	}
	if err != nil && !rest.IsAlreadyExists(err) && !rest.IsNotFound(err) {
		require.NoError(t, err, "chaos write %s", n)
	}
	w.writes++
}

// chaosFault is one fault TestChaos may inject.
type chaosFault struct {
	name string
	do   func()
}

// chaosFaults lists every fault TestChaos draws from: the server's, the
// proxy's and the client clock's.
func chaosFaults(e *env, rng *rand.Rand) []chaosFault {
	cm := configMaps.match("")
	watchOnly := configMaps.match("watch")
	return []chaosFault{
		{"cut watch (abort)", func() { e.srv.CutWatches(cm, fakeapiserver.CutAbort) }},
		{"cut watch mid-frame", func() { e.srv.CutWatches(cm, fakeapiserver.CutMidFrame) }},
		{"cut watch (clean end)", func() { e.srv.CutWatches(cm, fakeapiserver.CutClean) }},
		{"restart, data kept", func() { e.srv.Restart(false) }},
		{"restart with compaction", func() { e.srv.Restart(true) }},
		{"compaction", func() { e.srv.CompactNow() }},
		{"410 on the next watch", func() { e.srv.FailNext(fakeapiserver.FailRule{Match: watchOnly, Code: 410}) }},
		{"500 burst", func() { e.srv.FailNext(fakeapiserver.FailRule{Match: watchOnly, Code: 500, Count: 3}) }},
		{"503 on lists", func() { e.srv.FailNext(fakeapiserver.FailRule{Match: configMaps.match("list"), Code: 503, Count: 2}) }},
		{"429 Retry-After 1", func() {
			e.srv.FailNext(fakeapiserver.FailRule{Match: watchOnly, Code: 429, RetryAfterSeconds: 1, PlainText: rng.IntN(2) == 0})
		}},
		{"401", func() { e.srv.FailNext(fakeapiserver.FailRule{Match: watchOnly, Code: 401}) }},
		{"403", func() { e.srv.FailNext(fakeapiserver.FailRule{Match: watchOnly, Code: 403}) }},
		{"expired continue token", func() { e.srv.ExpireNextContinue(cm, 1, rng.IntN(2) == 0) }},
		{"stalled watches", func() { e.srv.StallWatches(cm) }},
		{"connection reset mid-frame", func() { e.proxy.ResetStream("") }},
		{"frame truncated", func() { e.proxy.TruncateStream("") }},
		{"malformed frame", func() {
			e.proxy.InjectAfter("", func() io.Reader { return strings.NewReader("{\"type\":\"MODIFIED\",\"object\":{not json}\n") }, false)
		}},
		{"410 ERROR event", func() { e.proxy.InjectAfter("", func() io.Reader { return strings.NewReader(error410) }, true) }},
		{"silent watch", func() { e.proxy.SilenceNextWatch(true) }},
		{"held reconnects", func() { e.proxy.HoldWatches() }},
		{"dropped initial-events-end", func() { e.proxy.DropInitialEventsEnd(1) }},
		{"client clock jumps past every deadline", func() { e.clock.Step(2*reflector.DefaultMinWatchTimeout + 31*time.Second) }},
	}
}
