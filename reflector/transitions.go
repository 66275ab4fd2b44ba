package reflector

import (
	"errors"
	"fmt"
	"time"
)

// outcome is what running one state produced: the input of the transition
// function.
type outcome struct {
	// err is why the step ended; nil when it ended normally (a list that
	// completed, a watch the server closed, a wait that elapsed).
	err error
	// stopped reports that the context was cancelled.
	stopped bool
	// rv is the resume point the step reached: the list's resourceVersion,
	// or the last event or bookmark of a watch; "" when it reached none.
	rv string
	// opened reports that a watch request was accepted, so that a failure
	// came from the stream rather than from the request.
	opened bool
	// events counts the watch events received.
	events int
	// elapsed is how long a watch stream stayed open.
	elapsed time.Duration
}

// machine is the memory the transitions keep between states. Only the
// goroutine running the reflector's loop touches it.
type machine struct {
	backoff backoff
	// now reads the reflector's clock.
	now func() time.Time
	// streaming reports that streaming lists are still worth trying; it
	// turns false for the rest of Run once a server rejects one.
	streaming bool
	// lastSync is the resourceVersion the store is known to be at: the
	// last Replace's, advanced by every watch event and bookmark.
	lastSync string
	// unusable reports that lastSync cannot be listed or watched at any more
	// (a 410, a too-large resourceVersion, a stale list): the next list is a
	// consistent read.
	unusable bool
	// shortWatches counts consecutive watches that ended within a second
	// without an event.
	shortWatches int
	// goneSince is when the resource was first found gone (zero while it
	// is served), goneProbes how many probes have failed since, goneMax
	// the longest wait between probes (gone.go).
	goneSince  time.Time
	goneProbes int
	goneMax    time.Duration
}

// Bounds of the protocol cases of the error policy.
const (
	// maxShortWatches: the third watch in a row that closes at once
	// relists, since its resourceVersion may be silently unusable (a
	// resource without a watch cache answers a too-old one that way).
	maxShortWatches = 3
	// maxStreamingAttempts: a streaming list that ends before its bookmark
	// this many times in a row is abandoned for LIST then WATCH.
	maxStreamingAttempts = 3
	// shortWatch is the lifetime under which a watch with no event counts
	// as a failure.
	shortWatch = time.Second
)

// initial returns the state a reflector starts in, and the state it relists
// with: a streaming list while streaming is worth trying, a paginated list
// otherwise, at the resourceVersion relistRV chooses.
func (m *machine) initial(cause error) State {
	if m.streaming {
		rv := m.lastSync
		if m.unusable {
			rv = ""
		}
		return StreamingList{ResourceVersion: rv, Attempt: 1, Cause: cause}
	}
	rv, match := m.relistRV()
	return Listing{ResourceVersion: rv, Match: match, Cause: cause}
}

// relistRV is the resourceVersion of the next paginated list: "0" before
// the first sync (whatever the server has cached), "" when the last one is
// unusable (a consistent read, never an Exact list at a compacted version),
// otherwise the last synced one, not older than it.
func (m *machine) relistRV() (string, ResourceVersionMatch) {
	switch {
	case m.unusable:
		return "", MatchUnset
	case m.lastSync == "":
		return "0", MatchUnset
	}
	return m.lastSync, MatchNotOlderThan
}

// relist marks the resourceVersion unusable and returns the list state that
// follows.
func (m *machine) relist(cause error) State {
	m.unusable = true
	return m.initial(cause)
}

// wait returns a BackingOff state of the backoff's next length.
func (m *machine) wait(then State, cause error) State {
	return BackingOff{Delay: m.backoff.next(m.now()), Then: then, Cause: cause}
}

// waitSlowly returns the BackingOff state for an error only a human can fix.
func (m *machine) waitSlowly(then State, cause error) State {
	return BackingOff{Delay: m.backoff.slow(), Then: then, Cause: cause}
}

// waitAsAsked returns the BackingOff state for a 429: the server's
// Retry-After, capped, or the backoff's next wait if it gave none.
func (m *machine) waitAsAsked(then State, cause error) State {
	d := min(retryAfter(cause), maxRetryAfter)
	if d <= 0 {
		return m.wait(then, cause)
	}
	return BackingOff{Delay: d, Then: then, Cause: cause}
}

// next is the transition function: every move of the reflector's loop is
// decided here, from the state that ran and its outcome. It updates the
// machine's memory (backoff, streaming, lastSync) but does no I/O, so it can
// be table-tested.
func (m *machine) next(from State, o outcome) State {
	if o.stopped {
		return Stopped{}
	}
	switch s := from.(type) {
	case Listing:
		return m.afterList(s, o)
	case StreamingList:
		return m.afterStreamingList(s, o)
	case Watching:
		return m.afterWatch(s, o)
	case BackingOff:
		return s.Then
	case ResourceGone:
		return m.initial(s.Cause)
	case Stopped:
		return s
	}
	panic(fmt.Sprintf("reflector: unknown state %T", from))
}

// afterList decides what follows a paginated list.
func (m *machine) afterList(s Listing, o outcome) State {
	if o.err == nil {
		m.synced(o.rv)
		return Watching{ResourceVersion: o.rv}
	}
	var stale *StaleError
	if errors.As(o.err, &stale) {
		return m.relist(o.err)
	}
	if isNotFound(o.err) {
		return m.gone(o.err)
	}
	retry := s
	retry.Cause = o.err
	switch Classify(o.err) {
	case ClassExpired:
		if s.ResourceVersion == "" && s.Match == MatchUnset {
			// Already a consistent read: do not spin.
			return m.wait(m.relist(o.err), o.err)
		}
		return m.relist(o.err)
	case ClassThrottled:
		return m.waitAsAsked(retry, o.err)
	case ClassNeedsHuman:
		return m.waitSlowly(retry, o.err)
	}
	return m.wait(retry, o.err)
}

// afterStreamingList decides what follows a streaming list.
func (m *machine) afterStreamingList(s StreamingList, o outcome) State {
	if o.err == nil {
		m.synced(o.rv)
		return Watching{ResourceVersion: o.rv, Continued: true}
	}
	var stale *StaleError
	retry := StreamingList{ResourceVersion: s.ResourceVersion, Attempt: s.Attempt + 1, Cause: o.err}
	class := Classify(o.err)
	switch {
	case errors.As(o.err, &stale):
		return m.relist(o.err)
	case isNotFound(o.err):
		return m.gone(o.err)
	case errors.Is(o.err, ErrInitialEventsTimeout), errors.Is(o.err, ErrNotStreaming):
		return m.fallBack(o.err)
	case errors.Is(o.err, ErrInitialEventsIncomplete), o.opened && class == ClassTransient:
		// The server took the request but the stream broke before the
		// bookmark (a cut connection, a restart): try again, a bounded
		// number of times.
		if s.Attempt >= maxStreamingAttempts {
			return m.fallBack(o.err)
		}
		return m.wait(retry, o.err)
	case class == ClassExpired:
		m.unusable = true
		retry.ResourceVersion = ""
		if s.ResourceVersion == "" {
			return m.wait(retry, o.err)
		}
		return retry
	case class == ClassThrottled:
		return m.waitAsAsked(retry, o.err)
	case !o.opened && isConnectionRefused(o.err):
		return m.wait(retry, o.err)
	}
	// Any other error: the server does not do streaming lists (422 with
	// the gate off, 400, 5xx...). Making progress beats retrying.
	return m.fallBack(o.err)
}

// fallBack gives up on streaming lists for the rest of Run and lists.
func (m *machine) fallBack(cause error) State {
	m.streaming = false
	return m.initial(fmt.Errorf("streaming list abandoned: %w", cause))
}

// afterWatch decides what follows a watch.
func (m *machine) afterWatch(s Watching, o outcome) State {
	resume := s.ResourceVersion
	if o.rv != "" {
		resume = o.rv
	}
	again := Watching{ResourceVersion: resume}
	if o.err == nil {
		m.shortWatches = 0
		return again
	}
	if errors.Is(o.err, ErrWatchClosedEarly) {
		m.shortWatches++
		if m.shortWatches >= maxShortWatches {
			m.shortWatches = 0
			return m.wait(m.relist(o.err), o.err)
		}
		return m.wait(again, o.err)
	}
	m.shortWatches = 0
	switch Classify(o.err) {
	case ClassExpired:
		return m.relist(o.err)
	case ClassThrottled:
		return m.waitAsAsked(again, o.err)
	case ClassNeedsHuman:
		if isNotFound(o.err) {
			// The resource itself is gone (a deleted CRD): probe for it
			// with consistent lists until it is back.
			return m.gone(o.err)
		}
		return m.waitSlowly(again, o.err)
	}
	return m.wait(again, o.err)
}

// synced records a successful list at rv.
func (m *machine) synced(rv string) {
	m.lastSync = rv
	m.unusable = false
	m.shortWatches = 0
	m.goneSince, m.goneProbes = time.Time{}, 0
}
