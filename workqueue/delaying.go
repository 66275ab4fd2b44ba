package workqueue

import "time"

// AddAfter adds item once delay has passed on the queue's clock. A delay of
// zero or less adds it at once, like Add.
//
// An item already waiting for its delay keeps a single entry, due at the
// earlier of its two times. A delayed item is otherwise independent of the
// ready list: if it is also added directly, it is processed then, and added
// again when its delay expires. After ShutDown, AddAfter does nothing, and
// ShutDown discards delayed items not yet due.
func (q *Queue[K]) AddAfter(item K, delay time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		q.stats.dropped++
		return
	}
	now := q.clock.Now()
	if delay <= 0 {
		q.addLocked(item, now)
		return
	}
	if q.delayed.schedule(item, now.Add(delay)) {
		// The earliest due time moved earlier, so the parked Gets' timers
		// (armed for the old earliest, or none) are late: wake them all to
		// re-arm. See Queue.waiters for why all of them.
		for len(q.waiters) > 0 {
			q.signalOneLocked()
		}
	}
}

// promoteLocked moves every delayed item due at or before now to the ready
// list, earliest first; each one's wait time starts at its due time. q.mu
// must be held. (After ShutDown the heap is empty, so nothing is added.)
func (q *Queue[K]) promoteLocked(now time.Time) {
	for {
		next, ok := q.delayed.peek()
		if !ok || next.due.After(now) {
			return
		}
		q.delayed.pop()
		q.addLocked(next.item, next.due)
	}
}

// delayed is one item waiting for its due time.
type delayed[K comparable] struct {
	item K
	due  time.Time
	seq  uint64 // orders items with the same due time: first scheduled first
}

// delayHeap is a binary min-heap of delayed items by (due, seq), with an
// index so an item is held at most once. It is not safe for concurrent use;
// the Queue's mutex guards it.
type delayHeap[K comparable] struct {
	entries []delayed[K]
	index   map[K]int // item -> position in entries
	nextSeq uint64
}

func newDelayHeap[K comparable]() delayHeap[K] {
	return delayHeap[K]{index: make(map[K]int)}
}

// len returns the number of delayed items.
func (h *delayHeap[K]) len() int { return len(h.entries) }

// peek returns the earliest item without removing it.
func (h *delayHeap[K]) peek() (delayed[K], bool) {
	if len(h.entries) == 0 {
		return delayed[K]{}, false
	}
	return h.entries[0], true
}

// schedule makes item due at due, or at its existing due time if that is
// earlier. It reports whether the heap's earliest due time became earlier.
func (h *delayHeap[K]) schedule(item K, due time.Time) bool {
	first, hadFirst := h.peek()
	if i, ok := h.index[item]; ok {
		if !due.Before(h.entries[i].due) {
			return false
		}
		h.entries[i].due = due
		h.up(i)
	} else {
		h.entries = append(h.entries, delayed[K]{item: item, due: due, seq: h.nextSeq})
		h.nextSeq++
		i := len(h.entries) - 1
		h.index[item] = i
		h.up(i)
	}
	return !hadFirst || due.Before(first.due)
}

// pop removes the earliest item. The heap must not be empty.
func (h *delayHeap[K]) pop() {
	last := len(h.entries) - 1
	h.swap(0, last)
	delete(h.index, h.entries[last].item)
	h.entries[last] = delayed[K]{}
	h.entries = h.entries[:last]
	if last > 0 {
		h.down(0)
	}
}

// reset drops every delayed item.
func (h *delayHeap[K]) reset() {
	h.entries = nil
	clear(h.index)
}

func (h *delayHeap[K]) less(i, j int) bool {
	a, b := &h.entries[i], &h.entries[j]
	if a.due.Equal(b.due) {
		return a.seq < b.seq
	}
	return a.due.Before(b.due)
}

func (h *delayHeap[K]) swap(i, j int) {
	h.entries[i], h.entries[j] = h.entries[j], h.entries[i]
	h.index[h.entries[i].item] = i
	h.index[h.entries[j].item] = j
}

func (h *delayHeap[K]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

func (h *delayHeap[K]) down(i int) {
	n := len(h.entries)
	for {
		smallest := i
		if l := 2*i + 1; l < n && h.less(l, smallest) {
			smallest = l
		}
		if r := 2*i + 2; r < n && h.less(r, smallest) {
			smallest = r
		}
		if smallest == i {
			return
		}
		h.swap(i, smallest)
		i = smallest
	}
}
