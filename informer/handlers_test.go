package informer_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

func TestBlockedHandlerDelaysNoOtherHandler(t *testing.T) {
	e := newEnv(t)
	e.create("default", "a", nil)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	inf := e.informerFor("default", informer.Options[*ConfigMap]{Clock: clk})

	release := make(chan struct{})
	blocked := make(chan struct{})
	slow := newRecorder()
	var once sync.Once
	slow.before = func(string) {
		once.Do(func() { close(blocked) })
		<-release
	}
	fast := newRecorder()
	slowReg, err := inf.AddEventHandler(slow, informer.HandlerOptions{Name: "slow"})
	require.NoError(t, err)
	fastReg, err := inf.AddEventHandler(fast, informer.HandlerOptions{Name: "fast"})
	require.NoError(t, err)
	run(t, inf)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})

	<-blocked // the slow handler is stuck in its first call, an initial add
	for i := range 20 {
		e.create("default", "n"+strconv.Itoa(i), nil)
	}
	// The fast handler gets everything while the slow one is stuck, and
	// the informer's cache keeps up too.
	fast.waitLen(t, 21)
	waitSynced(t, inf, fastReg)
	assert.Len(t, inf.Indexer().ListKeys(), 21)
	assert.Empty(t, slow.snapshot())
	assert.False(t, slowReg.HasSynced())

	// The slow handler's backlog is visible: 20 notifications wait behind
	// the one it is stuck in, the oldest as old as the clk has moved
	// since.
	clk.Step(3 * time.Second)
	b := slowReg.Backlog()
	assert.Equal(t, 20, b.Queued)
	assert.Equal(t, 3*time.Second, b.Oldest)
	assert.Equal(t, uint64(1), b.Delivered, "the call in progress")
	fb := fastReg.Backlog()
	assert.Equal(t, informer.Backlog{Delivered: 21}, fb)

	close(release)
	events := slow.waitLen(t, 21)
	assert.Equal(t, fast.snapshot(), events, "the slow handler sees the same events in the same order")
	waitSynced(t, slowReg)
	assert.Equal(t, informer.Backlog{Delivered: 21}, slowReg.Backlog())
}

// model is the consistency-checking handler of these tests.
type model = informer.Model[*ConfigMap]

func newModel() *model { return informer.NewModel[*ConfigMap]() }

// cacheState is the informer's cache as key → resourceVersion.
func cacheState(inf *informer.Informer[*ConfigMap]) map[string]string {
	out := map[string]string{}
	for _, o := range inf.Indexer().List() {
		out[meta.Key(o)] = o.ResourceVersion
	}
	return out
}

// serverState is what the server holds in ns, as key → resourceVersion.
func (e *env) serverState(ns string) map[string]string {
	e.t.Helper()
	list, err := rest.ListAs[*ConfigMap](e.ctx, e.c.Get().Namespace(ns).Resource("configmaps"))
	require.NoError(e.t, err)
	out := map[string]string{}
	for _, o := range list.Items {
		out[meta.Key(o)] = o.ResourceVersion
	}
	return out
}

func TestLateHandlerDuringWriteStormSeesNoGapAndNoDuplicate(t *testing.T) {
	e := newEnv(t)
	for i := range 20 {
		e.create("default", "seed-"+strconv.Itoa(i), nil)
	}
	inf := e.informerFor("default", informer.Options[*ConfigMap]{})
	early := newModel()
	_, err := inf.AddEventHandler(early, informer.HandlerOptions{Name: "early"})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)

	// A storm of writes: creates, updates and deletes from two writers,
	// while handlers are added one after another.
	var writers sync.WaitGroup
	stopStorm := make(chan struct{})
	writes := make([]int, 2)
	for w := range 2 {
		writers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stopStorm:
					return
				default:
				}
				// Each name is created, updated, and every fourth time
				// deleted, so the storm keeps making all three changes.
				name := fmt.Sprintf("w%d-%d", w, (i/3)%10)
				var err error
				switch i % 3 {
				case 0:
					err = e.c.Post().Namespace("default").Resource("configmaps").
						Body(&ConfigMap{ObjectMeta: meta.ObjectMeta{Name: name}}).Do(e.ctx).Error()
				case 1:
					err = e.c.Put().Namespace("default").Resource("configmaps").Name(name).
						Body(&ConfigMap{ObjectMeta: meta.ObjectMeta{Name: name}, Data: map[string]string{"i": strconv.Itoa(i)}}).Do(e.ctx).Error()
				case 2:
					if (i/3)%4 == 0 {
						err = e.c.Delete().Namespace("default").Resource("configmaps").Name(name).Do(e.ctx).Error()
					}
				}
				if err != nil && !rest.IsAlreadyExists(err) && !rest.IsNotFound(err) {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				writes[w]++
			}
		})
	}
	models := []*model{early}
	for i := range 8 {
		// Add the next handler only once a few more changes have gone
		// by, so each lands in the middle of the storm.
		seen := 0
		early.WaitFor(t, "the storm to move on", func(_ map[string]string, events int) bool {
			if seen == 0 {
				seen = events
			}
			return events >= seen+5
		})
		m := newModel()
		_, err := inf.AddEventHandler(m, informer.HandlerOptions{Name: "late-" + strconv.Itoa(i)})
		require.NoError(t, err)
		models = append(models, m)
	}
	close(stopStorm)
	writers.Wait()

	// One last write: a handler that has seen it has seen everything
	// before it, in order.
	e.create("default", "zz-final", nil)
	for _, m := range models {
		m.WaitFor(t, "the final write", func(objs map[string]string, _ int) bool {
			_, ok := objs["default/zz-final"]
			return ok
		})
	}
	want := e.serverState("default")
	assert.Equal(t, want, cacheState(inf), "the cache holds what the server holds")
	for i, m := range models {
		objs, problems := m.State()
		assert.Empty(t, problems, "handler %d", i)
		assert.Equal(t, want, objs, "handler %d", i)
	}
	t.Logf("%d writes; %d objects at the end", writes[0]+writes[1], len(want))
}

func TestRemovedHandlerGetsNothingMore(t *testing.T) {
	e := newEnv(t)
	inf := e.informerFor("default", informer.Options[*ConfigMap]{})
	kept, removed := newRecorder(), newRecorder()
	_, err := inf.AddEventHandler(kept, informer.HandlerOptions{})
	require.NoError(t, err)
	reg, err := inf.AddEventHandler(removed, informer.HandlerOptions{})
	require.NoError(t, err)
	// A handler that removes itself on its first event.
	var selfReg *informer.Registration[*ConfigMap]
	var selfCalls []string
	var selfMu sync.Mutex
	registered := make(chan struct{})
	selfReg, err = inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(obj *ConfigMap, _ bool) {
			<-registered
			selfMu.Lock()
			selfCalls = append(selfCalls, obj.Name)
			selfMu.Unlock()
			selfReg.Remove()
		},
	}, informer.HandlerOptions{})
	require.NoError(t, err)
	close(registered)
	run(t, inf)
	waitSynced(t, inf, reg)

	e.create("default", "a", nil)
	removed.waitLen(t, 1)
	reg.Remove()
	reg.Remove() // idempotent
	e.create("default", "b", nil)
	e.create("default", "c", nil)
	kept.waitLen(t, 3)
	assert.Len(t, removed.snapshot(), 1, "nothing after Remove")
	selfMu.Lock()
	assert.Equal(t, []string{"a"}, selfCalls, "a handler can remove itself")
	selfMu.Unlock()
	assert.Equal(t, 0, reg.Backlog().Queued, "a removed handler has no backlog")

	// A handler removed before it synced says so.
	idle := e.informerFor("default", informer.Options[*ConfigMap]{})
	early, err := idle.AddEventHandler(newRecorder(), informer.HandlerOptions{})
	require.NoError(t, err)
	early.Remove()
	assert.ErrorIs(t, early.SyncError(), informer.ErrRemoved)
}

func TestResyncIsPerHandler(t *testing.T) {
	e := newEnv(t)
	a := e.create("default", "a", nil)
	b := e.create("default", "b", nil)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	inf := e.informerFor("default", informer.Options[*ConfigMap]{Clock: clk})
	every10s, every1s, never := newRecorder(), newRecorder(), newRecorder()
	for rec, period := range map[*recorder]time.Duration{every10s: 10 * time.Second, every1s: time.Millisecond, never: 0} {
		_, err := inf.AddEventHandler(rec, informer.HandlerOptions{ResyncPeriod: period})
		require.NoError(t, err)
	}
	run(t, inf)
	waitSynced(t, inf)
	for _, rec := range []*recorder{every10s, every1s, never} {
		rec.waitLen(t, 2)
	}

	resyncs := func(rec *recorder) []string {
		var out []string
		for _, ev := range rec.snapshot() {
			if strings.HasPrefix(ev, "update") {
				out = append(out, ev)
			}
		}
		return out
	}
	sameState := []string{
		"update default/a " + a.ResourceVersion + "->" + a.ResourceVersion,
		"update default/b " + b.ResourceVersion + "->" + b.ResourceVersion,
	}
	// A period under the minimum is raised to MinResyncPeriod (1s): the
	// resync loop's timer is for 1s, not 1ms.
	require.NoError(t, clk.WaitForTimer(e.ctx, informer.MinResyncPeriod))
	for i := 1; i <= 10; i++ {
		clk.Step(time.Second)
		every1s.waitLen(t, 2+2*i)
	}
	every10s.waitLen(t, 4)
	// Mark the end with a change every handler sees.
	c := e.create("default", "c", nil)
	never.waitLen(t, 3)
	every10s.waitLen(t, 5)
	every1s.waitLen(t, 23)

	assert.Empty(t, resyncs(never), "a handler without a period is never resynced")
	assert.ElementsMatch(t, sameState, resyncs(every10s), "one resync in 10s")
	assert.Len(t, resyncs(every1s), 20, "ten resyncs in 10s")
	assert.Equal(t, "add default/c "+c.ResourceVersion, every10s.snapshot()[4])
}

func TestPanickingHandlerIsReportedAndKeepsReceiving(t *testing.T) {
	e := newEnv(t)
	errs := newErrorLog()
	inf := e.informerFor("default", informer.Options[*ConfigMap]{OnError: errs.add})
	rec := newRecorder()
	rec.before = func(ev string) {
		if strings.Contains(ev, "default/boom") {
			panic("boom")
		}
	}
	other := newRecorder()
	reg, err := inf.AddEventHandler(rec, informer.HandlerOptions{Name: "fragile"})
	require.NoError(t, err)
	_, err = inf.AddEventHandler(other, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)

	e.create("default", "boom", nil)
	after := e.create("default", "after", nil)
	assert.Equal(t, []string{"add default/after " + after.ResourceVersion}, rec.waitLen(t, 1))
	other.waitLen(t, 2)
	perr := errs.waitFor(t, "handler panic", func(err error) bool {
		_, ok := err.(*informer.HandlerPanicError)
		return ok
	}).(*informer.HandlerPanicError)
	assert.Equal(t, "configmaps", perr.Informer)
	assert.Equal(t, "fragile", perr.Handler)
	assert.Equal(t, "OnAdd", perr.Method)
	assert.Equal(t, "default/boom", perr.Key)
	assert.Equal(t, "boom", perr.Value)
	assert.NotEmpty(t, perr.Stack)
	assert.Contains(t, perr.Error(), "configmaps: handler fragile: OnAdd default/boom panicked: boom")
	assert.Equal(t, uint64(1), reg.Backlog().Panics)
}

func TestRegistrationsListsHandlersInOrderUntilRemoved(t *testing.T) {
	e := newEnv(t)
	inf := e.informerFor("default", informer.Options[*ConfigMap]{Name: "configmaps"})
	assert.Empty(t, inf.Registrations(), "no handler yet")
	first, err := inf.AddEventHandler(newRecorder(), informer.HandlerOptions{Name: "first"})
	require.NoError(t, err)
	second, err := inf.AddEventHandler(newRecorder(), informer.HandlerOptions{Name: "second"})
	require.NoError(t, err)
	third, err := inf.AddEventHandler(newRecorder(), informer.HandlerOptions{Name: "third"})
	require.NoError(t, err)
	names := func() []string {
		var out []string
		for _, r := range inf.Registrations() {
			out = append(out, r.Name())
		}
		return out
	}
	assert.Equal(t, []string{"configmaps/first", "configmaps/second", "configmaps/third"}, names())

	first.Remove()
	assert.Equal(t, []string{"configmaps/second", "configmaps/third"}, names(), "a removed handler is left out")

	e.create("default", "a", nil)
	run(t, inf)
	waitSynced(t, inf, second, third)
	for _, r := range inf.Registrations() {
		assert.True(t, r.HasSynced(), "Registrations()[%s].HasSynced()", r.Name())
		assert.Equal(t, uint64(1), r.Backlog().Delivered, "Registrations()[%s].Backlog().Delivered", r.Name())
	}
}
