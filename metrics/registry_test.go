package metrics_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/metrics"
)

func TestRegistryConcurrentAdds(t *testing.T) {
	var r metrics.Registry
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				r.Add("n_total", 1, "k", "v")
				r.Observe("d_seconds", 0.002, "k", "v")
			}
		})
	}
	wg.Wait()
	snap := r.Snapshot()
	require.Len(t, snap, 2)
	assert.Equal(t, "d_seconds", snap[0].Name)
	assert.Equal(t, uint64(8000), snap[0].Count)
	assert.Equal(t, []uint64{0, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000, 8000}, snap[0].Counts)
	assert.Equal(t, metrics.Metric{Name: "n_total", Labels: []string{"k", "v"}, Kind: metrics.Counter, Value: 8000}, snap[1])
}

func TestRegistryKeepsKindsApart(t *testing.T) {
	var r metrics.Registry
	r.Add("x", 1)
	r.Set("x", 5) // a mistake: it does not overwrite the counter
	snap := r.Snapshot()
	require.Len(t, snap, 2)
	var sink metrics.Sink = metrics.Discard{}
	sink.Add("x", 1)
	sink.Set("x", 1)
	sink.Observe("x", 1)
}

func TestRegistryGet(t *testing.T) {
	var r metrics.Registry
	r.Add("a_total", 2, "x", "1")
	r.Observe("h_seconds", 0.2, "x", "1")
	m, ok := r.Get("a_total", "x", "1")
	require.True(t, ok)
	assert.Equal(t, 2.0, m.Value)
	h, ok := r.Get("h_seconds", "x", "1")
	require.True(t, ok)
	assert.Equal(t, uint64(1), h.Count)
	_, ok = r.Get("a_total", "x", "2")
	assert.False(t, ok)
	_, ok = r.Get("a_total")
	assert.False(t, ok)
}
