package cache

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

type shrinkObj struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

// TestFIFOGivesBackRoomOnceDrained: after a large list is popped, the FIFO
// no longer holds the entries slice and pending map it grew; a small queue
// keeps its slice.
func TestFIFOGivesBackRoomOnceDrained(t *testing.T) {
	f := NewFIFO(QueueOptions[*shrinkObj]{})
	defer f.Close()
	items := make([]*shrinkObj, 3*shrinkAbove)
	for i := range items {
		items[i] = &shrinkObj{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "o-" + strconv.Itoa(i)}}
	}
	require.NoError(t, f.Replace(items, "1"))
	nop := func(string, Deltas[*shrinkObj]) error { return nil }
	for range items {
		require.NoError(t, f.Pop(context.Background(), nop))
	}
	assert.True(t, f.HasSynced())
	f.mu.Lock()
	assert.Zero(t, cap(f.entries), "the large entries slice is released")
	assert.Zero(t, f.pendingPeak, "the large pending map was replaced")
	assert.Empty(t, f.pending)
	f.mu.Unlock()

	require.NoError(t, f.Add(items[0]))
	require.NoError(t, f.Pop(context.Background(), nop))
	f.mu.Lock()
	assert.NotZero(t, cap(f.entries), "a small slice is kept for reuse")
	assert.Equal(t, 1, f.pendingPeak)
	f.mu.Unlock()
}
