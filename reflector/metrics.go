package reflector

import (
	"errors"
	"time"
)

// The reflector's metrics (Options.Metrics), each labelled
// reflector=<Options.Name>:
//
//	kubecache_reflector_lists_total{result}            lists, paginated or streaming (result=ok, error)
//	kubecache_reflector_list_duration_seconds           how long each list took, pages and replace included
//	kubecache_reflector_watches_total{result}           watches that ended (result=ok: the server or the
//	                                                    deadline ended them; error)
//	kubecache_reflector_watch_duration_seconds          how long each watch stayed open
//	kubecache_reflector_relists_total{cause}            lists after the first, by why: expired (410 or a
//	                                                    too-large resourceVersion), stale (a list older than
//	                                                    the cache), watch-closed-early, not-found (the
//	                                                    resource may be gone), streaming-abandoned
//
// Nothing is measured without a Sink: the loop reads the clock once per
// step (a list, a watch, a wait), never per event.

// The names of the reflector's metrics.
const (
	metricLists         = "kubecache_reflector_lists_total"
	metricListDuration  = "kubecache_reflector_list_duration_seconds"
	metricWatches       = "kubecache_reflector_watches_total"
	metricWatchDuration = "kubecache_reflector_watch_duration_seconds"
	metricRelists       = "kubecache_reflector_relists_total"
)

// observe reports one step of the loop: the state that ran from begin,
// its outcome, and the state it led to.
func (r *Reflector[T]) observe(from, next State, o outcome, begin time.Time) {
	sink := r.opts.Metrics
	if sink == nil || o.stopped {
		return
	}
	result := "ok"
	if o.err != nil {
		result = "error"
	}
	name := r.opts.Name
	// The duration is observed before the count is added, so a reader
	// that sees a count of n also sees n durations.
	switch from.(type) {
	case Listing, StreamingList:
		sink.Observe(metricListDuration, r.clock.Now().Sub(begin).Seconds(), "reflector", name)
		sink.Add(metricLists, 1, "reflector", name, "result", result)
	case Watching:
		sink.Observe(metricWatchDuration, r.clock.Now().Sub(begin).Seconds(), "reflector", name)
		sink.Add(metricWatches, 1, "reflector", name, "result", result)
	}
	if cause := relistCause(from, next, o.err); cause != "" {
		sink.Add(metricRelists, 1, "reflector", name, "cause", cause)
	}
}

// relistCause names why the move from one state to the next is a relist,
// or returns "" when it is not one: a list that follows a watch, or a list
// that must start again at a consistent read, is a relist; the first list
// and a list retried as it was are not.
func relistCause(from, next State, err error) string {
	if b, ok := next.(BackingOff); ok {
		next = b.Then
	}
	switch next.(type) {
	case Listing, StreamingList:
	default:
		return ""
	}
	if err == nil {
		return ""
	}
	var stale *StaleError
	switch {
	case errors.As(err, &stale):
		return "stale"
	case errors.Is(err, ErrWatchClosedEarly):
		return "watch-closed-early"
	case isNotFound(err):
		return "not-found"
	case Classify(err) == ClassExpired:
		return "expired"
	}
	if _, watching := from.(Watching); watching {
		return "error"
	}
	if sameKind(from, next) {
		return ""
	}
	return "streaming-abandoned"
}

// sameKind reports whether two states are both paginated lists or both
// streaming lists.
func sameKind(a, b State) bool {
	_, al := a.(Listing)
	_, bl := b.(Listing)
	return al == bl
}
