package cache_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
)

// popAll pops every queued entry of q and renders each as "key Type:rv".
func popAll(t *testing.T, q cache.Queue[*Pod], n int) []string {
	t.Helper()
	var out []string
	for range n {
		p := popOne(t, q)
		for _, s := range summary(p.deltas) {
			out = append(out, p.key+" "+s)
		}
	}
	return out
}

func TestFIFOKeepsArrivalOrderAcrossKeys(t *testing.T) {
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, f.Add(newPod("ns", "a", "1")))
	require.NoError(t, f.Add(newPod("ns", "b", "2")))
	require.NoError(t, f.Update(newPod("ns", "a", "3")))
	require.NoError(t, f.Delete(newPod("ns", "b", "4")))
	require.NoError(t, f.Delete(newPod("ns", "b", "5")))

	assert.Equal(t, 4, f.Len(), "each delta is an entry; the second delete of b collapses")
	assert.Equal(t, []string{"ns/a", "ns/b"}, f.QueuedKeys())
	got, ok := f.GetByKey("ns/a")
	require.True(t, ok)
	assert.Equal(t, "3", got.ResourceVersion)
	assert.Equal(t, []string{"ns/a"}, keysOf(f.List()), "b's newest state is a deletion")

	assert.Equal(t, []string{"ns/a Added:1", "ns/b Added:2", "ns/a Updated:3", "ns/b Deleted:4"}, popAll(t, f, 4))
	_, ok = f.GetByKey("ns/a")
	assert.False(t, ok)
}

func TestFIFODeleteOfUnknownObjectQueuesNothing(t *testing.T) {
	known := indexerOf(t, newPod("ns", "k", "1"))
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
	require.NoError(t, f.Delete(newPod("ns", "ghost", "1")))
	assert.Zero(t, f.Len())
	require.NoError(t, f.Delete(newPod("ns", "k", "2")))
	assert.Equal(t, 1, f.Len(), "an object in KnownObjects is known")
}

func TestFIFOReplace(t *testing.T) {
	known := indexerOf(t,
		newPod("ns", "indexed-kept", "1"),
		newPod("ns", "indexed-gone", "2"),
		newPod("ns", "deleting", "3"),
	)
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
	require.NoError(t, f.Add(newPod("ns", "queued-gone", "4")))
	require.NoError(t, f.Delete(newPod("ns", "deleting", "5")))

	require.NoError(t, f.Replace([]*Pod{newPod("ns", "indexed-kept", "10")}, "20"))
	assert.Equal(t, "20", f.ResourceVersion())
	got := popAll(t, f, f.Len())
	assert.Equal(t, []string{"ns/queued-gone Added:4", "ns/deleting Deleted:5", "ns/indexed-kept Replaced:10"}, got[:3])
	assert.ElementsMatch(t, []string{"ns/queued-gone Deleted:4?", "ns/indexed-gone Deleted:2?"}, got[3:],
		"known objects missing from the list, and only those not already being deleted")
}

func TestFIFOHasSyncedAndRequeue(t *testing.T) {
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, f.Replace([]*Pod{newPod("ns", "a", "1"), newPod("ns", "b", "2")}, "3"))
	require.NoError(t, f.Update(newPod("ns", "a", "4")))
	assert.False(t, f.HasSynced())

	// A requeued entry goes back to the head, before a's later update.
	err := f.Pop(context.Background(), func(string, cache.Deltas[*Pod]) error { return cache.Requeue(nil) })
	var rq *cache.RequeueError
	require.ErrorAs(t, err, &rq)
	assert.False(t, f.HasSynced())
	assert.Equal(t, []string{"ns/a Replaced:1", "ns/b Replaced:2"}, popAll(t, f, 2))
	assert.True(t, f.HasSynced(), "both entries of the first Replace processed")
	assert.Equal(t, []string{"ns/a Updated:4"}, popAll(t, f, 1))

	boom := errors.New("boom")
	require.NoError(t, f.Add(newPod("ns", "c", "5")))
	assert.ErrorIs(t, f.Pop(context.Background(), func(string, cache.Deltas[*Pod]) error { return boom }), boom)
	assert.Zero(t, f.Len(), "any other error drops the entry")
}

func TestFIFOResyncAndInFlight(t *testing.T) {
	known := indexerOf(t, newPod("ns", "a", "1"), newPod("ns", "b", "1"))
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
	require.NoError(t, f.Update(newPod("ns", "b", "2")))
	require.NoError(t, f.Resync())
	assert.Equal(t, []string{"ns/b Updated:2", "ns/a Sync:1"}, popAll(t, f, 2), "queued keys get no Sync")

	require.NoError(t, f.Update(newPod("ns", "a", "7")))
	err := f.Pop(context.Background(), func(key string, d cache.Deltas[*Pod]) error {
		require.NoError(t, f.Resync())
		require.NoError(t, f.Replace([]*Pod{newPod("ns", "b", "1")}, "8"))
		newest, _ := d.Newest()
		return known.Update(newest.Object)
	})
	require.NoError(t, err)
	got := popAll(t, f, f.Len())
	require.Len(t, got, 4)
	// Resync follows KnownObjects' order, which is unspecified.
	assert.ElementsMatch(t, []string{"ns/a Sync:7", "ns/b Sync:1"}, got[:2],
		"the key in flight is known in the state being processed")
	assert.Equal(t, []string{"ns/b Replaced:1", "ns/a Deleted:7?"}, got[2:])
}

func TestFIFOCloseAndCompaction(t *testing.T) {
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{})
	// Enough entries to exercise the reclaiming of the popped prefix.
	for i := range 3000 {
		require.NoError(t, f.Add(newPod("ns", "p", strconv.Itoa(i))))
	}
	for i := range 3000 {
		p := popOne(t, f)
		require.Equal(t, strconv.Itoa(i), p.deltas[0].Object.ResourceVersion, "entry %d out of order", i)
		if i == 1500 {
			require.NoError(t, f.Add(newPod("ns", "q", "late")))
		}
	}
	assert.Equal(t, []string{"ns/q Added:late"}, popAll(t, f, 1))

	errc := make(chan error, 1)
	go func() { errc <- f.Pop(context.Background(), func(string, cache.Deltas[*Pod]) error { return nil }) }()
	f.Close()
	assert.ErrorIs(t, <-errc, cache.ErrClosed)
	assert.ErrorIs(t, f.Update(newPod("ns", "x", "1")), cache.ErrClosed)
}

func TestFIFOBeginReplace(t *testing.T) {
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{})
	require.NoError(t, f.Add(newPod("ns", "a", "1")))
	r := f.BeginReplace()
	cur, ok := r.Lookup("ns", "a")
	require.True(t, ok)
	assert.Equal(t, "1", cur.ResourceVersion)
	require.NoError(t, r.Add(cur))
	require.NoError(t, r.Commit("2"))
	assert.Equal(t, []string{"ns/a Added:1", "ns/a Replaced:1"}, popAll(t, f, 2))
	assert.True(t, f.HasSynced())
}
