package webview

import (
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/watch"
)

// Ring sizes: how much history a page that connects late still sees, and
// the most a frame can carry. Events overwrite each other in their own
// ring, so a burst never pushes a bookmark or a relist out of sight.
const (
	eventRing      = 512
	markRing       = 128
	transitionRing = 64
)

// pointKind is what a point on the resourceVersion timeline is.
type pointKind uint8

const (
	pointEvent pointKind = iota + 1
	pointInitial
	pointBookmark
	pointList
	pointRelist
	pointReplace
	pointWatch
	pointWatchEnd
	pointPage
)

var pointKindNames = [...]string{
	pointEvent: "event", pointInitial: "initial", pointBookmark: "bookmark", pointList: "list",
	pointRelist: "relist", pointReplace: "replace", pointWatch: "watch", pointWatchEnd: "watch-end",
	pointPage: "page",
}

// point is one entry of the timeline as the hot path records it: no
// allocation, the strings are the trace event's own.
type point struct {
	seq  uint64
	at   time.Duration
	kind pointKind
	typ  watch.EventType
	key  string
	rv   string
	// n is a page's item count.
	n int
}

// transition is one state change as recorded.
type transition struct {
	seq      uint64
	at       time.Duration
	from, to reflector.State
	reason   string
}

// counts are the totals since the recorder started.
type counts struct {
	Added     uint64 `json:"added"`
	Modified  uint64 `json:"modified"`
	Deleted   uint64 `json:"deleted"`
	Initial   uint64 `json:"initial"`
	Skipped   uint64 `json:"skipped"`
	Bookmarks uint64 `json:"bookmarks"`
	Lists     uint64 `json:"lists"`
	Relists   uint64 `json:"relists"`
	Backoffs  uint64 `json:"backoffs"`
}

// Recorder keeps what a reflector reports to its trace hook, in bounded
// rings, for the page to sample: the current state, the last transitions
// with their reasons, the last events and the last marks (lists, bookmarks,
// replaces) of the resourceVersion timeline, and counters.
//
// Trace is the hook (reflector.Options.Trace). It does a few stores under
// a mutex per call and never allocates for an event, so a burst costs the
// reflector almost nothing; readers copy what they need under the same
// mutex a few times a second. It is safe for concurrent use.
type Recorder struct {
	clock clock.Clock
	start time.Time

	// mu guards every field below.
	mu sync.Mutex
	// state is the reflector's state, nil before its first request.
	state       reflector.State
	stateSince  time.Duration
	transitions [transitionRing]transition
	tseq        uint64
	events      [eventRing]point
	eseq        uint64
	marks       [markRing]point
	mseq        uint64
	counts      counts
	// lastEnd is the last WatchEnded, which explains the state change
	// that follows it; ended reports that one is pending.
	lastEnd reflector.WatchEnded
	ended   bool
	// relisting marks that the list in progress is a relist.
	relisting bool
	// stamp is the last reading of the clock, since start; sampling
	// counts the pages sampling the recorder.
	stamp    time.Duration
	sampling int
}

// NewRecorder returns a Recorder that timestamps with c (nil: the wall
// clock), counting from now.
func NewRecorder(c clock.Clock) *Recorder {
	c = clock.Or(c)
	return &Recorder{clock: c, start: c.Now()}
}

// stampEvery is how many events may share one reading of the clock
// while a page samples the recorder: reading it costs more than recording
// an event, and the page draws at the resolution of its frames anyway.
const stampEvery = 16

// Trace records one trace event; it is a reflector.Options.Trace hook.
func (r *Recorder) Trace(ev reflector.TraceEvent) {
	if e, ok := ev.(reflector.EventApplied); ok {
		r.Applied(e)
		return
	}
	at := r.clock.Now().Sub(r.start)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stamp = at
	if r.state == nil {
		r.inferStartLocked(at, ev)
	}
	switch ev := ev.(type) {
	case reflector.EventSkipped:
		r.counts.Skipped++
	case reflector.BookmarkReceived:
		r.counts.Bookmarks++
		r.markLocked(point{at: at, kind: pointBookmark, rv: ev.ResourceVersion})
	case reflector.ListRequested:
		if ev.Page <= 1 {
			r.counts.Lists++
			kind := pointList
			if r.relisting {
				kind = pointRelist
			}
			r.markLocked(point{at: at, kind: kind, rv: ev.Options.ResourceVersion})
		}
	case reflector.ListPageReceived:
		r.markLocked(point{at: at, kind: pointPage, rv: ev.ResourceVersion, n: ev.Items})
	case reflector.WatchRequested:
		kind := pointWatch
		if ev.Options.SendInitialEvents {
			r.counts.Lists++
			if r.relisting {
				kind = pointRelist
			} else {
				kind = pointList
			}
		}
		r.markLocked(point{at: at, kind: kind, rv: ev.Options.ResourceVersion})
	case reflector.Replaced:
		r.relisting = false
		r.markLocked(point{at: at, kind: pointReplace, rv: ev.ResourceVersion})
	case reflector.WatchEnded:
		r.lastEnd, r.ended = ev, true
		r.markLocked(point{at: at, kind: pointWatchEnd, rv: ev.ResourceVersion})
	case reflector.StateChanged:
		r.recordTransitionLocked(at, ev)
	}
}

// Applied records one applied event; it is a reflector.Options.Applied
// hook, the hot path. While a page samples, the event takes the time of
// the last sample or of the last stampEvery-th event; otherwise it reads
// the clock.
func (r *Recorder) Applied(ev reflector.EventApplied) {
	r.mu.Lock()
	if r.sampling == 0 || r.eseq%stampEvery == 0 {
		r.stamp = r.clock.Now().Sub(r.start)
	}
	r.recordEventLocked(r.stamp, ev)
	r.mu.Unlock()
}

// recordEventLocked writes one event into its ring.
func (r *Recorder) recordEventLocked(at time.Duration, ev reflector.EventApplied) {
	kind := pointEvent
	switch {
	case ev.Initial:
		r.counts.Initial++
		kind = pointInitial
	case ev.Type == watch.Added:
		r.counts.Added++
	case ev.Type == watch.Modified:
		r.counts.Modified++
	case ev.Type == watch.Deleted:
		r.counts.Deleted++
	}
	r.eseq++
	r.events[r.eseq%eventRing] = point{seq: r.eseq, at: at, kind: kind, typ: ev.Type, key: ev.Key, rv: ev.ResourceVersion}
}

// markLocked appends a mark to its ring.
func (r *Recorder) markLocked(p point) {
	r.mseq++
	p.seq = r.mseq
	r.marks[r.mseq%markRing] = p
}

// recordTransitionLocked appends a state change with its reason.
func (r *Recorder) recordTransitionLocked(at time.Duration, ev reflector.StateChanged) {
	var end *reflector.WatchEnded
	if r.ended {
		end = &r.lastEnd
	}
	reason := transitionReason(ev.From, ev.To, end)
	r.ended = false
	if isRelist(ev.From, ev.To) {
		r.counts.Relists++
		r.relisting = true
	}
	if _, ok := ev.To.(reflector.BackingOff); ok {
		r.counts.Backoffs++
	}
	r.tseq++
	r.transitions[r.tseq%transitionRing] = transition{seq: r.tseq, at: at, from: ev.From, to: ev.To, reason: reason}
	r.state, r.stateSince = ev.To, at
}

// isRelist reports a move from watching back to a list, at once or after
// a wait: the store is about to be rebuilt.
func isRelist(from, to reflector.State) bool {
	if _, ok := from.(reflector.Watching); !ok {
		return false
	}
	if b, ok := to.(reflector.BackingOff); ok {
		to = b.Then
	}
	switch to.(type) {
	case reflector.Listing, reflector.StreamingList:
		return true
	}
	return false
}

// inferStartLocked sets the state before the first transition, which the
// reflector does not report: its first request says which state it is in.
func (r *Recorder) inferStartLocked(at time.Duration, ev reflector.TraceEvent) {
	switch ev := ev.(type) {
	case reflector.ListRequested:
		r.state = reflector.Listing{ResourceVersion: ev.Options.ResourceVersion, Match: ev.Options.ResourceVersionMatch}
	case reflector.WatchRequested:
		if !ev.Options.SendInitialEvents {
			return
		}
		r.state = reflector.StreamingList{ResourceVersion: ev.Options.ResourceVersion, Attempt: 1}
	default:
		return
	}
	r.stateSince = at
}
