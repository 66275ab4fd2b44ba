package informer

import (
	"context"
	"time"
)

// Resync, per handler. Each handler that asks for a resync has its own
// period and its own due time. When the earliest due time comes, the
// informer collects every handler due by then into a round and appends one
// entryResync per cached object to the log, tagged with the round; each
// handler delivers the entries of the rounds it belongs to and skips the
// others. Because the entries go through the same log as every change, a
// resync is ordered with the changes around it and never shows a handler
// an older state than one it has already seen.

// entryDetail is what a log entry needs beyond its objects: the set of
// handlers a resync is for, or the resourceVersion a progress entry
// reports.
type entryDetail struct {
	members map[uint64]struct{}
	// rv and relist are a progress entry's: the resourceVersion the cache
	// reached, and whether a list (rather than a bookmark) brought it
	// there.
	rv     string
	relist bool
}

func (r *entryDetail) includes(id uint64) bool {
	_, ok := r.members[id]
	return ok
}

// resyncLoop runs resync rounds as handlers fall due, until ctx is done.
func (inf *Informer[T]) resyncLoop(ctx context.Context) {
	for {
		next, ok := inf.nextResync()
		var fire <-chan time.Time
		stop := func() bool { return false }
		if ok {
			fire, stop = inf.clock.NewTimer(next.Sub(inf.clock.Now()))
		}
		select {
		case <-ctx.Done():
			stop()
			return
		case <-inf.resyncChanged:
			stop()
		case <-fire:
			inf.resyncDue()
		}
	}
}

// nextResync returns the earliest due time among handlers with a resync
// period, and false if there is none.
func (inf *Informer[T]) nextResync() (time.Time, bool) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	var next time.Time
	found := false
	for _, l := range inf.listeners {
		if l.resync > 0 && (!found || l.nextResync.Before(next)) {
			next, found = l.nextResync, true
		}
	}
	return next, found
}

// resyncDue runs one round for every handler due now. Before the informer
// has synced there is nothing complete to re-deliver: due handlers are
// pushed back by a period.
func (inf *Informer[T]) resyncDue() {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	now := inf.clock.Now()
	round := &entryDetail{members: map[uint64]struct{}{}}
	for _, l := range inf.listeners {
		if l.resync > 0 && !l.nextResync.After(now) {
			round.members[l.id] = struct{}{}
			l.nextResync = now.Add(l.resync)
		}
	}
	if len(round.members) == 0 || !inf.synced.Load() {
		return
	}
	at := int64(now.Sub(inf.epoch))
	for _, obj := range inf.indexer.List() {
		inf.log.appendLocked(entry[T]{kind: entryResync, obj: obj, detail: round, at: at})
	}
	inf.log.publishLocked()
}

// resyncScheduleChanged wakes resyncLoop to recompute its timer.
func (inf *Informer[T]) resyncScheduleChanged() {
	select {
	case inf.resyncChanged <- struct{}{}:
	default:
	}
}
