package workqueue

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAddAfterHandsOutInDueOrder(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.AddAfter("c", 3*time.Second)
	q.AddAfter("a", 1*time.Second)
	q.AddAfter("d", 4*time.Second)
	q.AddAfter("b", 2*time.Second)
	q.AddAfter("b2", 2*time.Second) // same due time as b: scheduled later, ready later
	assert.Equal(t, 0, q.Len(), "nothing is due yet")
	assert.Equal(t, 5, q.Metrics().Delayed)

	clock.Step(999 * time.Millisecond)
	assert.Equal(t, 0, q.Len(), "1ms before the first due time")

	clock.Step(2001 * time.Millisecond) // t = 3s: a, b, b2 and c are due
	assert.Equal(t, 4, q.Len())
	assert.Equal(t, 1, q.Metrics().Delayed)
	for _, want := range []string{"a", "b", "b2", "c"} {
		assert.Equal(t, want, mustGet(t, q))
	}
	clock.Step(time.Second)
	assert.Equal(t, "d", mustGet(t, q))
}

func TestAddAfterKeepsTheEarlierTime(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.AddAfter("a", 10*time.Second)
	q.AddAfter("a", 2*time.Second) // earlier: replaces
	q.AddAfter("a", 5*time.Second) // later: ignored
	assert.Equal(t, 1, q.Metrics().Delayed, "one entry per item")

	clock.Step(2 * time.Second)
	assert.Equal(t, "a", mustGet(t, q))
	q.Done("a")
	clock.Step(time.Hour)
	assert.Equal(t, 0, q.Len(), "the superseded times must not add a again")
}

func TestAddAfterWithoutDelayAddsNow(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.AddAfter("a", 0)
	q.AddAfter("b", -time.Second)
	assert.Equal(t, 2, q.Len())
	assert.Equal(t, 0, q.Metrics().Delayed)
}

func TestDueItemIsDeduplicatedWithReadyItem(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.Add("a")
	q.AddAfter("a", time.Second)
	clock.Step(time.Second)
	assert.Equal(t, 1, q.Len(), "a delayed add of a waiting item merges with it")
	assert.Equal(t, "a", mustGet(t, q))
	assert.Equal(t, uint64(1), q.Metrics().Merged)
}

func TestParkedGetWakesWhenDelayExpires(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.AddAfter("a", time.Minute)
	res := getAsync(testContext(t), q)
	require.NoError(t, clock.WaitForTimers(testContext(t), 1), "Get should park on a timer for a")

	clock.Step(59 * time.Second)
	select {
	case r := <-res:
		require.FailNow(t, "Get returned before the delay expired", "got %+v", r)
	default:
	}
	clock.Step(time.Second)
	r := receive(t, res)
	require.NoError(t, r.err)
	assert.Equal(t, "a", r.item)
	assert.Zero(t, len(clock.Pending()), "Get must stop its timer")
}

func TestEarlierAddAfterRearmsParkedGet(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.AddAfter("late", time.Hour)
	res := getAsync(testContext(t), q)
	require.NoError(t, clock.WaitForTimers(testContext(t), 1))

	q.AddAfter("soon", time.Second)
	// The Get re-parks with a timer for "soon"; its old timer is stopped.
	require.NoError(t, clock.WaitForTimers(testContext(t), 1))
	clock.Step(time.Second)
	r := receive(t, res)
	require.NoError(t, r.err)
	assert.Equal(t, "soon", r.item)
}

func TestParkedGetWithNothingDelayedSetsNoTimer(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	parks := watchParks(q)
	res := getAsync(testContext(t), q)
	parks.wait(t, 1)
	assert.Zero(t, len(clock.Pending()))
	q.Add("a")
	require.NoError(t, receive(t, res).err)
}

func TestShutDownDiscardsDelayedItems(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	q.AddAfter("a", time.Second)
	q.AddAfter("b", time.Second)
	q.ShutDown()
	q.AddAfter("c", time.Second) // refused
	clock.Step(time.Minute)
	assert.Equal(t, 0, q.Len())
	m := q.Metrics()
	assert.Equal(t, 0, m.Delayed)
	assert.Equal(t, uint64(3), m.Dropped)
	_, err := q.Get(testContext(t))
	require.ErrorIs(t, err, ErrShutDown)
}

func TestDelayHeapOrdersManyItems(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	// Schedule 200 items at pseudo-random due times, some re-scheduled
	// earlier; they must come out sorted by (due, first scheduled).
	const n = 200
	due := make(map[string]time.Duration, n)
	for i := range n {
		key := fmt.Sprint(i)
		d := time.Duration((i*7919)%97+1) * time.Second
		q.AddAfter(key, d)
		due[key] = d
		if i%5 == 0 {
			earlier := d / 2
			q.AddAfter(key, earlier)
			if earlier > 0 {
				due[key] = earlier
			}
		}
	}
	clock.Step(100 * time.Second)
	require.Equal(t, n, q.Len())
	var last time.Duration
	for range n {
		key := mustGet(t, q)
		assert.GreaterOrEqual(t, due[key], last, "item %s out of order", key)
		last = due[key]
	}
}

// TestDelayedItemWakesRemainingGetAfterOthersLeave parks two Gets before any
// item is delayed, lets the one an AddAfter would have woken leave, and
// checks that the delayed item still reaches the other when it is due.
func TestDelayedItemWakesRemainingGetAfterOthersLeave(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	parks := watchParks(q)
	stays := getAsync(testContext(t), q)
	parks.wait(t, 1)
	ctx, cancel := context.WithCancel(t.Context())
	leaves := getAsync(ctx, q) // parked last
	parks.wait(t, 2)

	q.AddAfter("x", time.Second)
	require.NoError(t, clock.WaitForTimers(testContext(t), 2), "both Gets must re-arm for x")
	cancel()
	require.ErrorIs(t, receive(t, leaves).err, context.Canceled)

	clock.Step(time.Second)
	r := receive(t, stays)
	require.NoError(t, r.err)
	assert.Equal(t, "x", r.item)
}

// TestNextDelayedItemWakesGetAfterTheFirstIsTaken checks that, after two
// parked Gets wake for one due item, the one left re-arms for the next.
func TestNextDelayedItemWakesGetAfterTheFirstIsTaken(t *testing.T) {
	q, clock := newFakeQueue(t, nil)
	parks := watchParks(q)
	ctx := testContext(t)
	results := []<-chan getResult[string]{getAsync(ctx, q), getAsync(ctx, q)}
	parks.wait(t, 2)

	q.AddAfter("x", time.Second)
	require.NoError(t, clock.WaitForTimers(ctx, 2))
	q.AddAfter("y", 2*time.Second)
	clock.Step(time.Second)
	// One Get takes x; the other re-parks with a timer for y.
	require.NoError(t, clock.WaitForTimers(ctx, 1))
	clock.Step(time.Second)

	got := map[string]bool{}
	for _, ch := range results {
		r := receive(t, ch)
		require.NoError(t, r.err)
		got[r.item] = true
	}
	assert.Equal(t, map[string]bool{"x": true, "y": true}, got)
}

// TestDelayedItemsReachChurningWorkers is a stress test on the real clock:
// keys are added one at a time with short random delays, so the delay heap
// keeps emptying and refilling while workers come and go (their contexts are
// cancelled, often while they are parked) and replacements start. Every key
// must be processed; a lost wake-up stalls the test, which then fails naming
// how many keys never arrived. (The fake-clock tests above pin the specific
// hand-offs; this one runs them against real timers and real scheduling.)
func TestDelayedItemsReachChurningWorkers(t *testing.T) {
	const (
		keys     = 200
		inFlight = 1
		workers  = 4
	)
	q := New(Options[int]{})
	rng := rand.New(rand.NewPCG(1, 2))
	processed := make(chan int, keys)

	var wg sync.WaitGroup
	defer wg.Wait()
	cancels := make([]context.CancelFunc, workers)
	start := func(slot int) {
		ctx, cancel := context.WithCancel(t.Context())
		cancels[slot] = cancel
		startWorker(&wg, ctx, q, func(k int) { processed <- k })
	}
	for slot := range workers {
		start(slot)
	}
	defer func() {
		for _, cancel := range cancels {
			cancel()
		}
	}()

	next := 0
	addNext := func() {
		if next < keys {
			q.AddAfter(next, time.Duration(1+rng.IntN(500))*time.Microsecond)
			next++
		}
	}
	for range inFlight {
		addNext()
	}
	seen := make(map[int]bool, keys)
	deadline := time.After(testTimeout)
	stopped := -1
	for len(seen) < keys {
		select {
		case k := <-processed:
			seen[k] = true
		case <-deadline:
			require.FailNowf(t, "delayed keys were lost", "%d of %d keys never processed; metrics %+v", keys-len(seen), keys, q.Metrics())
		}
		// Restart the worker stopped last round, add the next key, then stop
		// a random worker: often the one the add just woke to arm a timer.
		if stopped >= 0 {
			start(stopped)
		}
		addNext()
		stopped = rng.IntN(workers)
		cancels[stopped]()
	}
	assert.Len(t, seen, keys)
}
