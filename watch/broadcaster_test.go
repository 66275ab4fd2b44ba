package watch

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drain receives every event until the channel closes and returns the
// objects.
func drain(w Interface[int]) []int {
	var out []int
	for ev := range w.ResultChan() {
		out = append(out, ev.Object)
	}
	return out
}

func TestBroadcasterFanOut(t *testing.T) {
	b := NewBroadcaster[int](BroadcasterOptions{BufferSize: 10})
	w1 := b.Watch(context.Background(), WatchOptions[int]{})
	w2 := b.Watch(context.Background(), WatchOptions[int]{
		Initial: []Event[int]{{Type: Added, Object: -1}, {Type: Added, Object: -2}},
		Filter: func(ev Event[int]) (Event[int], bool) {
			if ev.Object%2 != 0 {
				return ev, false
			}
			ev.Object *= 10
			return ev, true
		},
	})
	require.Equal(t, 2, b.Len())
	for i := range 5 {
		b.Action(Event[int]{Type: Added, Object: i})
	}
	b.Shutdown()
	b.Shutdown()
	assert.Equal(t, []int{0, 1, 2, 3, 4}, drain(w1))
	assert.Equal(t, []int{-1, -2, 0, 20, 40}, drain(w2))
	w1.Stop()
	w2.Stop()
	assert.Zero(t, b.Len())

	// After Shutdown: Action is a no-op, Watch returns a closed watcher.
	b.Action(Event[int]{Type: Added, Object: 9})
	w3 := b.Watch(context.Background(), WatchOptions[int]{Initial: []Event[int]{{Type: Added, Object: 7}}})
	assert.Equal(t, []int{7}, drain(w3))
	w3.Stop()
}

func TestBroadcasterSlowWatcherClosed(t *testing.T) {
	b := NewBroadcaster[int](BroadcasterOptions{BufferSize: 3})
	defer b.Shutdown()
	slow := b.Watch(context.Background(), WatchOptions[int]{})
	defer slow.Stop()
	fast := b.Watch(context.Background(), WatchOptions[int]{})
	defer fast.Stop()

	var got []int
	for i := range 10 {
		b.Action(Event[int]{Type: Added, Object: i})
		got = append(got, (<-fast.ResultChan()).Object)
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, got, "the fast watcher saw everything")
	assert.Equal(t, []int{0, 1, 2}, drain(slow), "the slow watcher got what fit, then was closed")
	assert.Equal(t, 1, b.Len())
}

func TestBroadcasterStopAndContext(t *testing.T) {
	b := NewBroadcaster[int](BroadcasterOptions{})
	defer b.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	w := b.Watch(ctx, WatchOptions[int]{})
	other := b.Watch(context.Background(), WatchOptions[int]{})
	b.Action(Event[int]{Type: Added, Object: 1})
	cancel()
	assert.Equal(t, []int{1}, drain(w), "cancelling ctx closes the watcher")
	w.Stop()
	assert.Equal(t, 1, b.Len())

	other.Stop()
	other.Stop()
	assert.Zero(t, b.Len())
	assert.Equal(t, []int{1}, drain(other))

	// A context already done gives a closed watcher.
	w = b.Watch(ctx, WatchOptions[int]{})
	assert.Empty(t, drain(w))
	assert.Zero(t, b.Len())
	w.Stop()
}

func TestBroadcasterConcurrent(t *testing.T) {
	b := NewBroadcaster[int](BroadcasterOptions{BufferSize: 5})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 20 {
		w := b.Watch(ctx, WatchOptions[int]{})
		wg.Go(func() {
			// Some watchers read until closed, some stop early.
			n := 0
			for range w.ResultChan() {
				n++
				if i%3 == 0 && n == 10 {
					w.Stop()
				}
			}
			w.Stop()
		})
	}
	wg.Go(func() {
		for i := range 1000 {
			b.Action(Event[int]{Type: Modified, Object: i})
		}
	})
	wg.Go(cancel)
	wg.Go(b.Shutdown)
	wg.Wait()
	assert.Zero(t, b.Len())
}
