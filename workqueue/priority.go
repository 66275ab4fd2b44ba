package workqueue

// LowPriority is the priority AddInitial gives the items of an informer's
// initial list: below every live event's (priority 0, Add's), so that a
// controller starting up, or resyncing a large cache, reacts to changes
// that happen now before it works through everything that already
// existed.
const LowPriority = -100

// AddWithPriority marks item as needing processing at priority: Get hands
// out ready items of higher priority first, and items of one priority in
// the order they became ready. Add is AddWithPriority(item, 0). An item
// already waiting keeps one entry; if priority is higher than the one it
// waits at, it moves to the back of that higher priority's line, and it
// never moves down. An item processing is handed out again after Done, at
// the highest priority asked meanwhile. Delayed and rate-limited adds
// become ready at priority 0.
func (q *Queue[K]) AddWithPriority(item K, priority int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		q.stats.dropped++
		return
	}
	q.addPriorityLocked(item, q.clock.Now(), priority)
}

// AddInitial adds an item an informer's handler was told of: with
// initial (an object of the initial list, or of the cache's contents for
// a handler added late) at LowPriority, unless Options.InitialListFirst is
// set; otherwise like Add. A handler's OnAdd(obj, initial) can call
// q.AddInitial(key, initial).
func (q *Queue[K]) AddInitial(item K, initial bool) {
	if initial && !q.initialFirst {
		q.AddWithPriority(item, LowPriority)
		return
	}
	q.Add(item)
}

// readyList holds the ready items, one first-in first-out line per
// priority, highest priority first. An item that moves to a higher
// priority leaves a stale entry behind rather than being searched for:
// each entry carries the sequence number it was pushed with, and it is
// live only while the item's dirty record holds that number.
type readyList[K comparable] struct {
	levels []readyLevel[K]
	// n counts the live entries: the ready items.
	n int
	// seq numbers pushes; 0 means "not in the list".
	seq uint64
}

// readyLevel is the line of one priority.
type readyLevel[K comparable] struct {
	priority int
	line     fifo[readyEntry[K]]
}

// readyEntry is one push of an item.
type readyEntry[K comparable] struct {
	item K
	seq  uint64
}

// len returns the number of ready items.
func (r *readyList[K]) len() int { return r.n }

// push queues item at the back of priority's line and returns the entry's
// sequence number. fresh says the item was not ready before (a move to a
// higher priority is not).
func (r *readyList[K]) push(item K, priority int, fresh bool) uint64 {
	i := 0
	for i < len(r.levels) && r.levels[i].priority > priority {
		i++
	}
	if i == len(r.levels) || r.levels[i].priority != priority {
		r.levels = append(r.levels, readyLevel[K]{})
		copy(r.levels[i+1:], r.levels[i:])
		r.levels[i] = readyLevel[K]{priority: priority}
	}
	r.seq++
	r.levels[i].line.push(readyEntry[K]{item: item, seq: r.seq})
	if fresh {
		r.n++
	}
	return r.seq
}

// pop removes and returns the first live entry of the highest priority,
// dropping stale ones on the way; live reports whether an entry is. The
// list must hold a ready item.
func (r *readyList[K]) pop(live func(readyEntry[K]) bool) K {
	for i := range r.levels {
		line := &r.levels[i].line
		for line.len() > 0 {
			e := line.pop()
			if !live(e) {
				continue
			}
			r.n--
			if r.n == 0 {
				r.dropStale()
			}
			return e.item
		}
	}
	panic("workqueue: ready list has no live entry")
}

// dropStale empties every line once no item is ready, so that stale
// entries do not outlive the items they stood for.
func (r *readyList[K]) dropStale() {
	for i := range r.levels {
		for r.levels[i].line.len() > 0 {
			r.levels[i].line.pop()
		}
	}
}
