package cache_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
)

func TestIndexerPutReturnsReplaced(t *testing.T) {
	x := nodeIndexer(t)
	a1 := newPod("ns", "a", "1")
	a1.Spec.NodeName = "n1"
	old, existed, err := x.Put("ns/a", a1)
	require.NoError(t, err)
	assert.False(t, existed)
	assert.Nil(t, old)

	a2 := newPod("ns", "a", "2")
	a2.Spec.NodeName = "n2"
	old, existed, err = x.Put("ns/a", a2)
	require.NoError(t, err)
	assert.True(t, existed)
	assert.Same(t, a1, old)
	got, ok := x.GetByKey("ns/a")
	require.True(t, ok)
	assert.Same(t, a2, got)
	keys, err := x.IndexKeys("node", "n1")
	require.NoError(t, err)
	assert.Empty(t, keys, "the old node value is unindexed")
	keys, err = x.IndexKeys("node", "n2")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns/a"}, keys)

	c := newPod("", "cluster-wide", "1")
	_, _, err = x.Put("cluster-wide", c)
	require.NoError(t, err, "a cluster-scoped key has no slash")

	old, existed, err = x.DeleteByKey("ns/a")
	require.NoError(t, err)
	assert.True(t, existed)
	assert.Same(t, a2, old)
	old, existed, err = x.DeleteByKey("ns/a")
	require.NoError(t, err)
	assert.False(t, existed)
	assert.Nil(t, old)
	assert.Equal(t, []string{"cluster-wide"}, x.ListKeys())
	keys, err = x.IndexKeys("node", "n2")
	require.NoError(t, err)
	assert.Empty(t, keys)
}

func TestIndexerPutRefusesBadInput(t *testing.T) {
	failing := func(p *Pod) ([]string, error) {
		if p.Spec.NodeName == "bad" {
			return nil, errors.New("bad node")
		}
		return nil, nil
	}
	x := cache.NewIndexer[*Pod](nil)
	require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"f": failing}))
	bad := newPod("ns", "a", "1")
	bad.Spec.NodeName = "bad"
	for _, tc := range []struct {
		name string
		key  string
		obj  *Pod
		want error
	}{
		{"empty key", "", newPod("ns", "a", "1"), cache.ErrInvalidKey},
		{"nil object", "ns/a", nil, cache.ErrNilObject},
		{"other name", "ns/b", newPod("ns", "a", "1"), cache.ErrKeyMismatch},
		{"other namespace", "nt/a", newPod("ns", "a", "1"), cache.ErrKeyMismatch},
		{"namespace missing", "a", newPod("ns", "a", "1"), cache.ErrKeyMismatch},
		{"namespace extra", "ns/a", newPod("", "a", "1"), cache.ErrKeyMismatch},
		{"same length, no slash", "nsxa", newPod("ns", "a", "1"), cache.ErrKeyMismatch},
		{"no name", "ns/", newPod("ns", "", "1"), cache.ErrNoName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, existed, err := x.Put(tc.key, tc.obj)
			require.ErrorIs(t, err, tc.want)
			assert.False(t, existed)
			assert.Nil(t, old)
			assert.Zero(t, x.Len(), "nothing stored")
		})
	}
	_, _, err := x.Put("ns/a", bad)
	require.ErrorContains(t, err, "bad node")
	assert.Zero(t, x.Len(), "nothing stored when an index function fails")

	_, _, err = x.DeleteByKey("")
	require.ErrorIs(t, err, cache.ErrInvalidKey)
}

// TestIndexerPutCustomKeyFunc: with a custom KeyFunc Put trusts the key in
// production; the package's tests turn the check on, and it catches a
// wrong key.
func TestIndexerPutCustomKeyFunc(t *testing.T) {
	byName := func(p *Pod) (string, error) {
		if p == nil {
			return "", cache.ErrNilObject
		}
		return "name:" + p.Name, nil
	}
	x := cache.NewIndexer[*Pod](byName)
	_, _, err := x.Put("name:a", newPod("ns", "a", "1"))
	require.NoError(t, err)
	_, _, err = x.Put("ns/a", newPod("ns", "a", "2"))
	require.ErrorIs(t, err, cache.ErrKeyMismatch)
	assert.Equal(t, []string{"name:a"}, x.ListKeys())
}

// TestFIFOPopReusesOneSlice: Pop hands process a one-delta slice that it
// reuses and clears, and allocates nothing per entry.
func TestFIFOPopReusesOneSlice(t *testing.T) {
	known := cache.NewIndexer[*Pod](nil)
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
	defer f.Close()
	ctx := context.Background()
	a, b := newPod("ns", "a", "1"), newPod("ns", "b", "1")
	require.NoError(t, f.Add(a))
	require.NoError(t, f.Add(b))

	var first, second cache.Deltas[*Pod]
	require.NoError(t, f.Pop(ctx, func(_ string, ds cache.Deltas[*Pod]) error {
		first = ds
		require.Len(t, ds, 1)
		assert.Same(t, a, ds[0].Object)
		return nil
	}))
	assert.Nil(t, first[0].Object, "the slice is cleared once process returns")
	require.NoError(t, f.Pop(ctx, func(_ string, ds cache.Deltas[*Pod]) error {
		second = ds
		assert.Same(t, b, ds[0].Object)
		return nil
	}))
	assert.Same(t, &first[0], &second[0], "every Pop hands the same slice")

	pod := newPod("ns", "c", "1")
	process := func(string, cache.Deltas[*Pod]) error { return nil }
	allocs := testing.AllocsPerRun(100, func() {
		if err := f.Update(pod); err != nil {
			t.Fatal(err)
		}
		if err := f.Pop(ctx, process); err != nil {
			t.Fatal(err)
		}
	})
	// Update computes the key (one string); Pop allocates nothing.
	assert.LessOrEqual(t, allocs, 1.0, "allocations per Update+Pop")
}

// TestFIFOPopRequeueAfterReuse: a requeued entry keeps its delta although
// the slice process saw is cleared.
func TestFIFOPopRequeueAfterReuse(t *testing.T) {
	f := cache.NewFIFO(cache.QueueOptions[*Pod]{})
	defer f.Close()
	ctx := context.Background()
	a := newPod("ns", "a", "1")
	require.NoError(t, f.Add(a))
	err := f.Pop(ctx, func(string, cache.Deltas[*Pod]) error { return cache.Requeue(errors.New("later")) })
	var rq *cache.RequeueError
	require.ErrorAs(t, err, &rq)
	require.NoError(t, f.Pop(ctx, func(key string, ds cache.Deltas[*Pod]) error {
		assert.Equal(t, "ns/a", key)
		require.Len(t, ds, 1)
		assert.Same(t, a, ds[0].Object)
		assert.Equal(t, cache.Added, ds[0].Type)
		return nil
	}))
	assert.Zero(t, f.Len())
}
