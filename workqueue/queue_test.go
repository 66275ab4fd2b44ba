package workqueue

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAddDeduplicates(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.Add("a")
	q.Add("b")
	q.Add("a")
	q.Add("a")
	assert.Equal(t, 2, q.Len(), "Len after adding a, b, a, a")

	assert.Equal(t, "a", mustGet(t, q))
	assert.Equal(t, "b", mustGet(t, q))
	assert.Equal(t, 0, q.Len(), "Len after taking both")

	m := q.Metrics()
	assert.Equal(t, uint64(4), m.Adds, "Adds")
	assert.Equal(t, uint64(2), m.Merged, "Merged")
}

func TestGetIsFIFO(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	var want []string
	for i := range 100 { // past the ring buffer's first growth
		key := fmt.Sprintf("k%03d", i)
		q.Add(key)
		want = append(want, key)
	}
	var got []string
	for range want {
		got = append(got, mustGet(t, q))
	}
	assert.Equal(t, want, got)
}

func TestAddWhileProcessingIsProcessedAgainAfterDone(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.Add("a")
	require.Equal(t, "a", mustGet(t, q))

	q.Add("a") // while processing: marked dirty, not ready
	q.Add("a") // and de-duplicated
	assert.Equal(t, 0, q.Len(), "Len while a is processing and re-added")

	q.Done("a")
	assert.Equal(t, 1, q.Len(), "Len after Done of a re-added item")
	assert.Equal(t, "a", mustGet(t, q))
	q.Done("a")
	assert.Equal(t, 0, q.Len(), "Len after the second Done")
	assert.Equal(t, 0, q.Metrics().Processing)
}

func TestAddWhileProcessingGoesToTheBack(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.Add("a")
	require.Equal(t, "a", mustGet(t, q))
	q.Add("a")
	q.Add("b")
	q.Done("a")
	assert.Equal(t, "b", mustGet(t, q), "b became ready before a was done")
	assert.Equal(t, "a", mustGet(t, q))
}

func TestDoneOfUnknownItemIsANoOp(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.Done("never-added")
	q.Add("a")
	q.Done("a") // queued but not processing
	assert.Equal(t, 1, q.Len(), "Done of a queued item must not drop it")
	assert.Equal(t, "a", mustGet(t, q))
	q.Done("a")
	q.Done("a") // twice
	assert.Equal(t, Metrics{Adds: 1, WaitTime: DurationStats{Count: 1}, WorkTime: DurationStats{Count: 1}}, q.Metrics())
}

// TestNoKeyIsProcessedConcurrently runs many workers over a few hot keys that
// producers keep re-adding, and asserts with a per-key in-flight counter that
// no key is ever held by two workers, and that every add made before a key's
// processing started is covered by some processing of it.
func TestNoKeyIsProcessedConcurrently(t *testing.T) {
	const (
		keys      = 8
		workers   = 16
		producers = 4
		addsEach  = 3000
	)
	q := New(Options[int]{})
	var inFlight [keys]atomic.Int32
	var processed [keys]atomic.Int64
	// lastAdd[k] is the sequence number of the latest add of k; seen[k] the
	// highest one a worker has observed at the start of processing k.
	var lastAdd, seen [keys]atomic.Int64
	var violations atomic.Int32

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		startWorker(&wg, ctx, q, func(k int) {
			if inFlight[k].Add(1) != 1 {
				violations.Add(1)
			}
			seen[k].Store(lastAdd[k].Load())
			runtime.Gosched() // widen the window another worker would need
			processed[k].Add(1)
			inFlight[k].Add(-1)
		})
	}
	var pg sync.WaitGroup
	for p := range producers {
		pg.Go(func() {
			for i := range addsEach {
				k := (i + p) % keys
				lastAdd[k].Add(1)
				q.Add(k)
			}
		})
	}
	pg.Wait()
	require.NoError(t, q.ShutDownWithDrain(testContext(t)))
	cancel()
	wg.Wait()

	assert.Zero(t, violations.Load(), "a key was processed by two workers at once")
	for k := range keys {
		assert.Positive(t, processed[k].Load(), "key %d never processed", k)
		assert.Equal(t, lastAdd[k].Load(), seen[k].Load(), "key %d: the last add was not followed by a processing", k)
	}
	m := q.Metrics()
	assert.Equal(t, uint64(producers*addsEach), m.Adds, "Adds")
	assert.Equal(t, m.WaitTime.Count, m.WorkTime.Count, "every Get was Done")
	assert.Equal(t, Metrics{}, Metrics{Depth: m.Depth, Delayed: m.Delayed, Processing: m.Processing}, "queue not empty after drain")
}

func TestGetBlocksUntilAdd(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	parks := watchParks(q)
	res := getAsync(testContext(t), q)
	parks.wait(t, 1)
	q.Add("a")
	r := receive(t, res)
	require.NoError(t, r.err)
	assert.Equal(t, "a", r.item)
}

func TestEachAddWakesOneParkedGet(t *testing.T) {
	const n = 5
	q, _ := newFakeQueue(t, nil)
	parks := watchParks(q)
	ctx := testContext(t)
	results := make([]<-chan getResult[string], n)
	for i := range results {
		results[i] = getAsync(ctx, q)
	}
	parks.wait(t, n)
	for i := range n {
		q.Add(fmt.Sprint(i))
	}
	got := map[string]bool{}
	for _, ch := range results {
		r := receive(t, ch)
		require.NoError(t, r.err)
		got[r.item] = true
	}
	assert.Len(t, got, n, "each Get received a different item")
}

func TestGetWithEndedContextReturnsAtOnce(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.Add("a")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := q.Get(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, ErrShutDown)
	assert.Equal(t, 1, q.Len(), "an ended Get must not take the item")
}

func TestContextCancelUnblocksGet(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	parks := watchParks(q)
	ctx, cancel := context.WithCancel(t.Context())
	res := getAsync(ctx, q)
	parks.wait(t, 1)
	cancel()
	r := receive(t, res)
	require.ErrorIs(t, r.err, context.Canceled)
	assert.Zero(t, r.item)

	q.mu.Lock()
	waiters := len(q.waiters)
	q.mu.Unlock()
	assert.Zero(t, waiters, "a cancelled Get must leave the waiters list")
}

func TestContextDeadlineUnblocksGet(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	_, err := q.Get(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestCancelledGetPassesItsSignalOn checks that work announced to a Get whose
// context ends at the same moment reaches another Get. It races the two many
// times; a lost signal shows up as a Get that never returns.
func TestCancelledGetPassesItsSignalOn(t *testing.T) {
	for i := range 200 {
		q, _ := newFakeQueue(t, nil)
		parks := watchParks(q)
		ctx, cancel := context.WithCancel(t.Context())
		doomed := getAsync(ctx, q)
		parks.wait(t, 1)
		survivor := getAsync(testContext(t), q)
		parks.wait(t, 2)
		// The survivor parked last, so the Add signals it; cancel the first
		// one concurrently to exercise both orders of the hand-off.
		go cancel()
		q.Add("a")
		r := receive(t, survivor)
		require.NoError(t, r.err, "round %d", i)
		assert.Equal(t, "a", r.item)
		cancel()
		d := receive(t, doomed)
		require.ErrorIs(t, d.err, context.Canceled, "round %d", i)
	}
}

// TestSignalledGetThatIsCancelledHandsOn makes the Get that receives the
// wake-up the one whose context ends, and checks that the item still reaches
// the other parked Get.
func TestSignalledGetThatIsCancelledHandsOn(t *testing.T) {
	for i := range 200 {
		q, _ := newFakeQueue(t, nil)
		parks := watchParks(q)
		survivor := getAsync(testContext(t), q)
		parks.wait(t, 1)
		ctx, cancel := context.WithCancel(t.Context())
		doomed := getAsync(ctx, q) // parked last: the Add signals it
		parks.wait(t, 2)
		q.mu.Lock()
		cancel() // ends the signalled Get's wait before it can take the item
		q.addLocked("a", epoch)
		q.mu.Unlock()
		d := receive(t, doomed)
		require.ErrorIs(t, d.err, context.Canceled, "round %d", i)
		r := receive(t, survivor)
		require.NoError(t, r.err, "round %d", i)
		assert.Equal(t, "a", r.item)
	}
}

func TestShutDownHandsOutReadyItemsThenErrShutDown(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	assert.True(t, q.ShuttingDown())

	q.Add("c") // refused
	assert.Equal(t, "a", mustGet(t, q))
	assert.Equal(t, "b", mustGet(t, q))
	_, err := q.Get(testContext(t))
	require.ErrorIs(t, err, ErrShutDown)
	assert.Equal(t, uint64(1), q.Metrics().Dropped, "Dropped counts the refused add")
	q.ShutDown() // idempotent
}

func TestShutDownWakesParkedGets(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	parks := watchParks(q)
	ctx := testContext(t)
	a, b := getAsync(ctx, q), getAsync(ctx, q)
	parks.wait(t, 2)
	q.ShutDown()
	require.ErrorIs(t, receive(t, a).err, ErrShutDown)
	require.ErrorIs(t, receive(t, b).err, ErrShutDown)
}

func TestShutDownKeepsAnItemReAddedWhileProcessing(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.Add("a")
	require.Equal(t, "a", mustGet(t, q))
	q.Add("a") // accepted before shutdown
	q.ShutDown()
	q.Done("a")
	assert.Equal(t, "a", mustGet(t, q), "an add accepted before ShutDown must still be processed")
	q.Done("a")
	_, err := q.Get(testContext(t))
	require.ErrorIs(t, err, ErrShutDown)
}

func TestShutDownWithDrainWaitsForWorkers(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	for i := range 10 {
		q.Add(fmt.Sprint(i))
	}
	held := mustGet(t, q) // a worker holds one item

	ctx := testContext(t)
	drained := make(chan error, 1)
	go func() { drained <- q.ShutDownWithDrain(ctx) }()

	// A second worker drains the rest; the drain must not finish while held
	// is still processing.
	var done []string
	for {
		item, err := q.Get(ctx)
		if err != nil {
			require.ErrorIs(t, err, ErrShutDown)
			break
		}
		done = append(done, item)
		q.Done(item)
	}
	assert.Len(t, done, 9)
	select {
	case err := <-drained:
		require.FailNow(t, "drain finished while an item was processing", "err = %v", err)
	default:
	}
	q.Done(held)
	require.NoError(t, receive(t, drained))
}

func TestShutDownWithDrainOfEmptyQueue(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	require.NoError(t, q.ShutDownWithDrain(testContext(t)))
	require.NoError(t, q.ShutDownWithDrain(testContext(t)), "a second drain")
}

func TestShutDownWithDrainGivesUpWithContext(t *testing.T) {
	q, _ := newFakeQueue(t, nil)
	q.Add("a")
	q.Add("b")
	mustGet(t, q)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := q.ShutDownWithDrain(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "1 ready, 1 processing")
	assert.True(t, q.ShuttingDown(), "the queue stays shut down")
}
