package kit

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
)

// delayer hands keys to emit when their time comes on a Clock. One timer
// covers every pending key: the earliest.
type delayer struct {
	clock clock.Clock
	emit  func(string)
	wake  chan struct{}

	// mu guards due and h.
	mu  sync.Mutex
	due map[string]time.Time
	h   delayHeap
}

func newDelayer(clk clock.Clock, emit func(string)) *delayer {
	return &delayer{clock: clk, emit: emit, wake: make(chan struct{}, 1), due: map[string]time.Time{}}
}

// add schedules key for at, unless it is already due sooner.
func (d *delayer) add(key string, at time.Time) {
	d.mu.Lock()
	if old, ok := d.due[key]; ok && !at.Before(old) {
		d.mu.Unlock()
		return
	}
	d.due[key] = at
	heap.Push(&d.h, delayed{key: key, at: at})
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run fires due keys until ctx ends.
func (d *delayer) run(ctx context.Context) {
	for {
		next, ok := d.fire()
		var timer <-chan time.Time
		stop := func() bool { return false }
		if ok {
			timer, stop = d.clock.NewTimer(next.Sub(d.clock.Now()))
		}
		select {
		case <-ctx.Done():
			stop()
			return
		case <-d.wake:
		case <-timer:
		}
		stop()
	}
}

// fire hands over every key that is due and returns when the next is.
func (d *delayer) fire() (time.Time, bool) {
	now := d.clock.Now()
	var ready []string
	d.mu.Lock()
	var next time.Time
	ok := false
	for d.h.Len() > 0 {
		e := d.h[0]
		if at, live := d.due[e.key]; !live || !at.Equal(e.at) {
			heap.Pop(&d.h) // superseded by an earlier time
			continue
		}
		if e.at.After(now) {
			next, ok = e.at, true
			break
		}
		heap.Pop(&d.h)
		delete(d.due, e.key)
		ready = append(ready, e.key)
	}
	d.mu.Unlock()
	for _, k := range ready {
		d.emit(k)
	}
	return next, ok
}

type delayed struct {
	key string
	at  time.Time
}

// delayHeap orders pending keys by time.
type delayHeap []delayed

func (h delayHeap) Len() int           { return len(h) }
func (h delayHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h delayHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *delayHeap) Push(x any)        { *h = append(*h, x.(delayed)) }
func (h *delayHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
