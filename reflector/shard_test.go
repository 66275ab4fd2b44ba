package reflector

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// The four selectors are the ones the API's own documentation gives for a
// 4-shard split.
func TestShardOfTilesTheHashSpace(t *testing.T) {
	want := []string{
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
		"shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')",
		"shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')",
		"shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
	}
	for i, sel := range want {
		s, err := ShardOf(i, 4)
		require.NoError(t, err)
		assert.Equal(t, sel, s.Selector())
	}
	for _, n := range []int{1, 3, 7, 1000} {
		next := uint64(0)
		for i := range n {
			s, err := ShardOf(i, n)
			require.NoError(t, err)
			require.Equal(t, next, s.First, "shard %d of %d starts where %d ended", i, n, i-1)
			if i == n-1 {
				require.Equal(t, uint64(math.MaxUint64), s.Last)
			} else {
				next = s.Last + 1
			}
		}
	}
	for _, bad := range [][2]int{{0, 0}, {-1, 2}, {2, 2}} {
		_, err := ShardOf(bad[0], bad[1])
		assert.ErrorIs(t, err, ErrInvalidOptions, "%v", bad)
	}
}

// The uids are a real v1.37.2 server's namespaces; its first half of the
// hash space held the first three.
func TestShardContainsAgreesWithTheRealServer(t *testing.T) {
	half := Shard{First: 0, Last: 1<<63 - 1}
	for uid, in := range map[string]bool{
		"41c4d3f9-0d6b-496a-98d6-5063b2adf11f": true,
		"c84f6170-8548-4960-a9d7-d719101ee622": true,
		"6e457ef2-c9c3-4a2b-87ca-7d78e6cc92e9": true,
		"8a534967-93c4-4963-8768-3bf7ddbf7686": false,
	} {
		assert.Equal(t, in, half.Contains(&meta.ObjectMeta{UID: uid}), uid)
	}
	byNS := Shard{Field: ShardByNamespace, First: ShardHash("a"), Last: ShardHash("a")}
	assert.True(t, byNS.Contains(&meta.ObjectMeta{Namespace: "a", UID: "x"}))
	assert.Equal(t, fmt.Sprintf("shardRange(object.metadata.namespace, '0x%016x', '0x%016x')", ShardHash("a"), ShardHash("a")+1), byNS.Selector())
}

func TestShardOptionsChecked(t *testing.T) {
	for _, s := range []Shard{{First: 2, Last: 1}, {Field: "object.metadata.name"}} {
		_, err := NewReflector[*ConfigMap](&ListWatch[*ConfigMap]{}, newCheckedStore(), Options{Shard: &s})
		assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", s)
	}
}

func TestShardedReflectorHoldsItsShard(t *testing.T) {
	shard, err := ShardOf(1, 3)
	require.NoError(t, err)
	l := startLoopback(t, fakeapiserver.Options{ShardedListAndWatch: true}, Options{Shard: &shard, PageSize: 7})
	for i := range 30 {
		l.create(fmt.Sprintf("cm-%02d", i), "1")
	}
	l.waitSynced()
	for i := range 30 {
		l.update(fmt.Sprintf("cm-%02d", i), "2")
	}
	l.create("last", "1")
	// The server's state restricted to the shard.
	ctx, cancel := l.ctx()
	defer cancel()
	want := func() []string {
		items, err := rest.ListAs[*ConfigMap](ctx, l.direct.Get().Namespace(testNamespace).Resource("configmaps").Param("shardSelector", shard.Selector()))
		require.NoError(t, err)
		require.NotNil(t, items.ShardInfo)
		for _, it := range items.Items {
			require.True(t, shard.Contains(&it.ObjectMeta))
		}
		return describe(items.Items)
	}
	l.waitTrace("the shard's state", func() bool { return fmt.Sprint(l.store.snapshot()) == fmt.Sprint(want()) })
	assert.NotEmpty(t, l.store.List())
	assert.Less(t, len(l.store.List()), 31)
	for _, e := range tracesOf[WatchRequested](l) {
		assert.False(t, e.Options.SendInitialEvents, "a sharded reflector does not stream lists")
	}
	assert.Empty(t, l.errors())
}

func TestShardNotServedIsReportedAndNotSynced(t *testing.T) {
	shard, err := ShardOf(0, 2)
	require.NoError(t, err)
	l := startLoopback(t, fakeapiserver.Options{}, Options{Shard: &shard})
	l.waitTrace("ErrShardNotServed", func() bool {
		for _, e := range l.errors() {
			if errors.Is(e, ErrShardNotServed) {
				assert.Equal(t, ClassNeedsHuman, e.Class)
				assert.Equal(t, "list", e.Op)
				assert.Contains(t, e.Error(), "has no metadata.shardInfo")
				assert.Contains(t, e.Error(), "ShardedListAndWatch feature gate")
				return true
			}
		}
		return false
	})
	assert.False(t, l.r.HasSynced())
	assert.Empty(t, l.store.List())
}
