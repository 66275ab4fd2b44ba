package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
)

func TestReplaceNamespaceLeavesOtherNamespacesAlone(t *testing.T) {
	for name, newQueue := range map[string]func(cache.QueueOptions[*Pod]) cache.Queue[*Pod]{
		"FIFO":      func(o cache.QueueOptions[*Pod]) cache.Queue[*Pod] { return cache.NewFIFO(o) },
		"DeltaFIFO": func(o cache.QueueOptions[*Pod]) cache.Queue[*Pod] { return cache.NewDeltaFIFO(o) },
	} {
		t.Run(name, func(t *testing.T) {
			known := indexerOf(t, newPod("a", "kept", "1"), newPod("a", "gone", "2"), newPod("b", "other", "3"))
			q := newQueue(cache.QueueOptions[*Pod]{KnownObjects: known})
			r := q.(interface {
				ReplaceNamespace(namespace string, items []*Pod, resourceVersion string) error
			})
			require.NoError(t, r.ReplaceNamespace("a", []*Pod{newPod("a", "kept", "4"), newPod("a", "new", "5")}, "5"))
			got := popAll(t, q, q.Len())
			assert.ElementsMatch(t, []string{"a/kept Replaced:4", "a/new Replaced:5", "a/gone Deleted:2?"}, got,
				"b/other is not deleted")
			assert.False(t, q.HasSynced(), "a namespace's replace is not the first Replace")

			require.NoError(t, r.ReplaceNamespace("b", nil, ""))
			assert.Equal(t, []string{"b/other Deleted:3?"}, popAll(t, q, q.Len()))
			assert.Error(t, r.ReplaceNamespace("a", []*Pod{newPod("b", "x", "6")}, "6"), "an item of another namespace")
			assert.Error(t, r.ReplaceNamespace("a", []*Pod{nil}, "6"), "a nil item")
			assert.Zero(t, q.Len(), "a refused replace queues nothing")
		})
	}
}
