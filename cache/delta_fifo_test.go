package cache_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
)

// popped is what one Pop handed to its process function.
type popped struct {
	key    string
	deltas cache.Deltas[*Pod]
}

// popOne pops one entry that must already be queued.
func popOne(t *testing.T, q cache.Queue[*Pod]) popped {
	t.Helper()
	var got popped
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := q.Pop(ctx, func(key string, d cache.Deltas[*Pod]) error {
		// The slice is the queue's only during the call (a FIFO reuses it).
		got = popped{key, slices.Clone(d)}
		return nil
	})
	require.NoError(t, err, "Pop")
	return got
}

// summary renders deltas as "Type:rv" (with "?" for FinalStateUnknown).
func summary(d cache.Deltas[*Pod]) []string {
	out := make([]string, 0, len(d))
	for _, x := range d {
		s := string(x.Type) + ":" + x.Object.ResourceVersion
		if x.FinalStateUnknown {
			s += "?"
		}
		out = append(out, s)
	}
	return out
}

func TestDeltaFIFOAccumulatesPerKeyInArrivalOrder(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, f.Add(newPod("ns", "a", "1")))
	require.NoError(t, f.Add(newPod("ns", "b", "2")))
	require.NoError(t, f.Update(newPod("ns", "a", "3")))
	require.NoError(t, f.Delete(newPod("ns", "a", "4")))
	require.NoError(t, f.Add(newPod("", "c", "5")))

	assert.Equal(t, []string{"ns/a", "ns/b", "c"}, f.QueuedKeys(), "keys in order of first arrival")
	assert.Equal(t, 3, f.Len())
	_, ok := f.GetByKey("ns/a")
	assert.False(t, ok, "the newest state of ns/a is a deletion")
	assert.Equal(t, []string{"ns/b", "c"}, f.ListKeys(), "the objects known to exist")
	assert.Equal(t, []string{"c", "ns/b"}, keysOf(f.List()))

	p := popOne(t, f)
	assert.Equal(t, "ns/a", p.key)
	assert.Equal(t, []string{"Added:1", "Updated:3", "Deleted:4"}, summary(p.deltas), "all of a key's deltas at once")
	p = popOne(t, f)
	assert.Equal(t, "ns/b", p.key)
	p = popOne(t, f)
	assert.Equal(t, "c", p.key)
	assert.Zero(t, f.Len())
	_, ok = f.GetByKey("ns/a")
	assert.False(t, ok, "a popped key is no longer queued")
}

func TestDeltaFIFOCollapsesConsecutiveDeletes(t *testing.T) {
	known := indexerOf(t, newPod("ns", "a", "1"))
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})

	require.NoError(t, f.Delete(newPod("ns", "a", "2")))
	require.NoError(t, f.Delete(newPod("ns", "a", "3")))
	d, _ := f.Deltas("ns/a")
	assert.Equal(t, []string{"Deleted:3"}, summary(d), "two deletes collapse into the newer")

	// A relist that misses the key adds a FinalStateUnknown delete, which
	// collapses into the delete whose final state is known.
	require.NoError(t, f.Replace(nil, "9"))
	d, _ = f.Deltas("ns/a")
	assert.Equal(t, []string{"Deleted:3"}, summary(d))
}

func TestDeltaFIFODeleteOfUnknownObjectQueuesNothing(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: cache.NewIndexer[*Pod](nil)})
	require.NoError(t, f.Delete(newPod("ns", "ghost", "1")))
	assert.Zero(t, f.Len())

	g := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, g.Delete(newPod("ns", "ghost", "1")))
	assert.Zero(t, g.Len(), "without KnownObjects, only queued keys are known")
}

func TestDeltaFIFOReplace(t *testing.T) {
	known := indexerOf(t, newPod("ns", "indexed-kept", "1"), newPod("ns", "indexed-gone", "2"))
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
	require.NoError(t, f.Add(newPod("ns", "queued-gone", "3")))
	require.NoError(t, f.Add(newPod("ns", "queued-kept", "4")))

	require.NoError(t, f.Replace([]*Pod{
		newPod("ns", "indexed-kept", "10"),
		newPod("ns", "queued-kept", "11"),
		newPod("ns", "new", "12"),
	}, "20"))
	assert.Equal(t, "20", f.ResourceVersion())

	got := map[string][]string{}
	for f.Len() > 0 {
		p := popOne(t, f)
		got[p.key] = summary(p.deltas)
	}
	assert.Equal(t, map[string][]string{
		"ns/queued-gone":  {"Added:3", "Deleted:3?"},
		"ns/queued-kept":  {"Added:4", "Replaced:11"},
		"ns/indexed-gone": {"Deleted:2?"},
		"ns/indexed-kept": {"Replaced:10"},
		"ns/new":          {"Replaced:12"},
	}, got)
}

func TestDeltaFIFOReplaceWithoutKnownObjects(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, f.Add(newPod("ns", "a", "1")))
	require.NoError(t, f.Replace([]*Pod{newPod("ns", "b", "2")}, "3"))
	p := popOne(t, f)
	assert.Equal(t, []string{"Added:1", "Deleted:1?"}, summary(p.deltas), "a queued key is known")
	p = popOne(t, f)
	assert.Equal(t, []string{"Replaced:2"}, summary(p.deltas))
}

func TestDeltaFIFOReplaceRejectsKeylessItem(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	err := f.Replace([]*Pod{newPod("ns", "a", "1"), newPod("ns", "", "2")}, "3")
	assert.ErrorIs(t, err, cache.ErrNoName)
	assert.Zero(t, f.Len(), "a failed Replace queues nothing")
	assert.False(t, f.HasSynced())
}

func TestDeltaFIFOHasSynced(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	assert.False(t, f.HasSynced(), "before any Replace")
	require.NoError(t, f.Replace([]*Pod{newPod("ns", "a", "1"), newPod("ns", "b", "2")}, "5"))
	require.NoError(t, f.Add(newPod("ns", "c", "6")))
	assert.False(t, f.HasSynced())
	popOne(t, f)
	assert.False(t, f.HasSynced(), "one of two initial keys processed")

	// A requeued initial entry is not yet processed.
	ctx := context.Background()
	err := f.Pop(ctx, func(string, cache.Deltas[*Pod]) error { return cache.Requeue(errors.New("later")) })
	var rq *cache.RequeueError
	require.ErrorAs(t, err, &rq, "Pop returns the process error")
	assert.False(t, f.HasSynced(), "requeued, not processed")
	assert.Equal(t, []string{"ns/c", "ns/b"}, f.QueuedKeys())

	popOne(t, f) // c: not part of the first Replace
	assert.False(t, f.HasSynced())
	popOne(t, f) // b
	assert.True(t, f.HasSynced())

	// Later replaces do not unsync it.
	require.NoError(t, f.Replace([]*Pod{newPod("ns", "d", "7")}, "8"))
	assert.True(t, f.HasSynced())
}

func TestDeltaFIFOHasSyncedAfterEmptyReplace(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, f.Replace(nil, "1"))
	assert.True(t, f.HasSynced(), "an empty first list syncs at once")
}

func TestDeltaFIFORequeueKeepsOrderWithLaterDeltas(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, f.Add(newPod("ns", "a", "1")))
	err := f.Pop(context.Background(), func(key string, d cache.Deltas[*Pod]) error {
		// While a is processed, it changes again.
		require.NoError(t, f.Update(newPod("ns", "a", "2")))
		return fmt.Errorf("wrapped: %w", cache.Requeue(nil))
	})
	require.Error(t, err)
	p := popOne(t, f)
	assert.Equal(t, []string{"Added:1", "Updated:2"}, summary(p.deltas), "requeued deltas go before the newer ones")

	// Any other error drops the deltas.
	require.NoError(t, f.Add(newPod("ns", "b", "3")))
	boom := errors.New("boom")
	err = f.Pop(context.Background(), func(string, cache.Deltas[*Pod]) error { return boom })
	assert.ErrorIs(t, err, boom)
	assert.Zero(t, f.Len())
}

func TestDeltaFIFOResync(t *testing.T) {
	known := indexerOf(t, newPod("ns", "a", "1"), newPod("ns", "b", "2"))
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
	require.NoError(t, f.Update(newPod("ns", "b", "3")))
	require.NoError(t, f.Resync())

	p := popOne(t, f)
	assert.Equal(t, "ns/b", p.key)
	assert.Equal(t, []string{"Updated:3"}, summary(p.deltas), "a queued key gets no Sync")
	p = popOne(t, f)
	assert.Equal(t, "ns/a", p.key)
	assert.Equal(t, []string{"Sync:1"}, summary(p.deltas))

	g := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, g.Resync())
	assert.Zero(t, g.Len(), "without KnownObjects Resync queues nothing")
}

// TestDeltaFIFOInFlightKeyIsKnown: while Pop processes a key, its deltas are
// in neither the queue nor (yet) the indexer; a Replace or Resync then must
// still treat the key as known, in the state being processed.
func TestDeltaFIFOInFlightKeyIsKnown(t *testing.T) {
	known := cache.NewIndexer[*Pod](nil)
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
	require.NoError(t, known.Add(newPod("ns", "b", "1")))
	require.NoError(t, f.Update(newPod("ns", "b", "5")))
	err := f.Pop(context.Background(), func(key string, d cache.Deltas[*Pod]) error {
		// The relist and the resync happen before b's new state reaches
		// the indexer.
		require.NoError(t, f.Resync())
		require.NoError(t, f.Replace(nil, "6"))
		newest, _ := d.Newest()
		return known.Update(newest.Object)
	})
	require.NoError(t, err)
	p := popOne(t, f)
	assert.Equal(t, "ns/b", p.key)
	assert.Equal(t, []string{"Sync:5", "Deleted:5?"}, summary(p.deltas),
		"the resync and the tombstone carry the state being processed, never the indexer's older one")
}

func TestDeltaFIFOPopWaitsAndEnds(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})

	// A waiting Pop gets an object queued later.
	got := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- f.Pop(context.Background(), func(key string, _ cache.Deltas[*Pod]) error {
			got <- key
			return nil
		})
	}()
	require.NoError(t, f.Add(newPod("ns", "late", "1")))
	assert.Equal(t, "ns/late", <-got)
	require.NoError(t, <-errc)

	// A waiting Pop returns when its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { errc <- f.Pop(ctx, func(string, cache.Deltas[*Pod]) error { return nil }) }()
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)

	// A waiting Pop returns when the queue closes.
	go func() {
		errc <- f.Pop(context.Background(), func(string, cache.Deltas[*Pod]) error { return nil })
	}()
	f.Close()
	assert.ErrorIs(t, <-errc, cache.ErrClosed)
	f.Close() // idempotent

	assert.ErrorIs(t, f.Add(newPod("ns", "x", "1")), cache.ErrClosed)
	assert.ErrorIs(t, f.Replace(nil, "1"), cache.ErrClosed)
	assert.ErrorIs(t, f.Resync(), cache.ErrClosed)
	assert.ErrorIs(t, f.Pop(context.Background(), func(string, cache.Deltas[*Pod]) error { return nil }), cache.ErrClosed)
	assert.Error(t, cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{}).Pop(context.Background(), nil), "nil process function")
}

func TestDeltaFIFOPopsOneAtATime(t *testing.T) {
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, f.Add(newPod("ns", "a", "1")))
	require.NoError(t, f.Add(newPod("ns", "b", "1")))

	inA := make(chan struct{})
	releaseA := make(chan struct{})
	errc := make(chan error, 2)
	go func() {
		errc <- f.Pop(context.Background(), func(string, cache.Deltas[*Pod]) error {
			close(inA)
			<-releaseA
			return nil
		})
	}()
	<-inA
	// A second Pop must wait for the first: it gives up when its context
	// ends without having taken b.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := f.Pop(ctx, func(string, cache.Deltas[*Pod]) error { return errors.New("second Pop ran concurrently") })
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	close(releaseA)
	require.NoError(t, <-errc)
	assert.Equal(t, []string{"ns/b"}, f.QueuedKeys())
}

func TestDeltaFIFOBeginReplace(t *testing.T) {
	stored := newPod("ns", "a", "1")
	known := indexerOf(t, stored, newPod("ns", "gone", "1"))
	f := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
	require.NoError(t, f.Update(newPod("ns", "q", "7")))

	r := f.BeginReplace()
	cur, ok := r.Lookup("ns", "a")
	require.True(t, ok)
	assert.Same(t, stored, cur, "Lookup finds the object behind the queue")
	cur, ok = r.Lookup("ns", "q")
	require.True(t, ok)
	assert.Equal(t, "7", cur.ResourceVersion, "Lookup prefers the newest queued state")
	require.NoError(t, r.Add(stored))
	require.NoError(t, r.Add(cur))
	assert.Equal(t, 1, f.Len(), "nothing is queued before Commit")
	require.NoError(t, r.Commit("9"))
	assert.ErrorIs(t, r.Commit("9"), cache.ErrReplacementDone)
	assert.Equal(t, []string{"ns/q", "ns/gone", "ns/a"}, f.QueuedKeys())
	assert.True(t, !f.HasSynced())

	r = f.BeginReplace()
	require.NoError(t, r.Add(newPod("ns", "z", "1")))
	r.Abort()
	assert.ErrorIs(t, r.Add(newPod("ns", "z", "1")), cache.ErrReplacementDone)
	assert.Equal(t, 3, f.Len(), "an aborted replacement queues nothing")
}

// TestQueuesReadNewestKnownState: reading a queue as a Store gives the
// newest state it knows of each object, wherever that state is.
func TestQueuesReadNewestKnownState(t *testing.T) {
	for _, kind := range []string{"DeltaFIFO", "FIFO"} {
		t.Run(kind, func(t *testing.T) {
			known := indexerOf(t,
				newPod("ns", "indexed", "1"),
				newPod("ns", "updated", "1"),
				newPod("ns", "deleted", "1"),
				newPod("ns", "flying", "1"),
			)
			var q lenQueue
			if kind == "DeltaFIFO" {
				q = cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
			} else {
				q = cache.NewFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
			}
			require.NoError(t, q.Update(newPod("ns", "flying", "2")))
			require.NoError(t, q.Update(newPod("ns", "updated", "3")))
			require.NoError(t, q.Delete(newPod("ns", "deleted", "4")))
			require.NoError(t, q.Add(newPod("ns", "new", "5")))

			rvs := func() map[string]string {
				out := map[string]string{}
				for _, p := range q.List() {
					out[metaKey(p)] = p.ResourceVersion
				}
				return out
			}
			err := q.Pop(context.Background(), func(key string, _ cache.Deltas[*Pod]) error {
				require.Equal(t, "ns/flying", key)
				// ns/flying is neither queued nor yet in the indexer.
				assert.Equal(t, map[string]string{"ns/indexed": "1", "ns/updated": "3", "ns/flying": "2", "ns/new": "5"}, rvs())
				assert.Equal(t, []string{"ns/flying", "ns/indexed", "ns/new", "ns/updated"}, sorted(q.ListKeys()))
				got, ok := q.GetByKey("ns/flying")
				require.True(t, ok, `GetByKey("ns/flying") while it is processed`)
				assert.Equal(t, "2", got.ResourceVersion)
				return nil
			})
			require.NoError(t, err)
			_, ok := q.GetByKey("ns/deleted")
			assert.False(t, ok, "an object queued for deletion is gone")
			got, exists, err := q.Get(newPod("ns", "indexed", ""))
			require.NoError(t, err)
			require.True(t, exists)
			assert.Equal(t, "1", got.ResourceVersion, "an object with nothing queued is read from KnownObjects")
			_, _, err = q.Get(newPod("ns", "", ""))
			assert.ErrorIs(t, err, cache.ErrNoName)
		})
	}
}
