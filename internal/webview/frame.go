package webview

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubecache/kubecache/reflector"
)

// Frame is what one Server-Sent Event carries to the page: everything new
// since the previous frame of the same connection, sampled. A burst of
// events reaches the page as its last maxFramePoints points and a count
// of the rest (Coalesced).
type Frame struct {
	// Seq numbers the frames of one connection from 1.
	Seq uint64 `json:"seq"`
	// Elapsed is the recorder's age in milliseconds.
	Elapsed     float64          `json:"elapsed"`
	Name        string           `json:"name"`
	State       StateView        `json:"state"`
	Transitions []TransitionView `json:"transitions"`
	Points      []PointView      `json:"points"`
	// Coalesced counts the events since the previous frame that are not
	// in Points.
	Coalesced uint64        `json:"coalesced"`
	Counts    counts        `json:"counts"`
	Store     StoreView     `json:"store"`
	Handlers  []HandlerView `json:"handlers"`
	Controls  *ControlsView `json:"controls,omitempty"`
}

// StateView is the reflector's current state.
type StateView struct {
	// Kind is Listing, StreamingList, Watching, BackingOff, Stopped, or
	// Starting before the first request.
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Since is when the state began, in the recorder's milliseconds.
	Since float64 `json:"since"`
	// Delay is a BackingOff state's wait in milliseconds.
	Delay float64 `json:"delay,omitempty"`
}

// TransitionView is one state change and why it happened.
type TransitionView struct {
	Seq    uint64  `json:"seq"`
	At     float64 `json:"at"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Reason string  `json:"reason"`
	Text   string  `json:"text"`
}

// PointView is one point of the resourceVersion timeline.
type PointView struct {
	At   float64 `json:"at"`
	Kind string  `json:"kind"`
	Type string  `json:"type,omitempty"`
	Key  string  `json:"key,omitempty"`
	RV   string  `json:"rv"`
	// Items is a page's item count.
	Items int `json:"items,omitempty"`
}

// StoreView is the cache's summary; the rows come from /api/objects.
type StoreView struct {
	Count    int    `json:"count"`
	Synced   bool   `json:"synced"`
	LastSync string `json:"lastSync"`
	// Changed are the keys of the objects the frame's events touched,
	// newest last, for the table to highlight.
	Changed []string `json:"changed"`
}

// HandlerView is one handler registration.
type HandlerView struct {
	Name      string  `json:"name"`
	Synced    bool    `json:"synced"`
	Queued    int     `json:"queued"`
	OldestMs  float64 `json:"oldestMs"`
	Delivered uint64  `json:"delivered"`
	// PerSecond is the handler's calls per second over the last two
	// seconds; negative until the connection has watched it long enough.
	PerSecond float64 `json:"perSecond"`
	Panics    uint64  `json:"panics"`
}

// Bounds of one frame.
const (
	maxFramePoints  = 60
	maxFrameChanged = 8
)

// cursor is where one connection is in the recorder's rings. The first
// frame of a connection carries every event the ring holds; later ones
// at most maxFramePoints.
type cursor struct {
	events, marks, transitions uint64
	sampled                    bool
}

// sample copies what is new since cur into f and moves cur on.
func (r *Recorder) sample(cur *cursor, f *Frame) {
	now := r.clock.Now().Sub(r.start)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stamp = now
	f.Elapsed = ms(now)
	f.State = stateView(r.state, r.stateSince)
	f.Counts = r.counts
	for seq := max(cur.transitions+1, oldest(r.tseq, transitionRing)); seq <= r.tseq; seq++ {
		t := r.transitions[seq%transitionRing]
		f.Transitions = append(f.Transitions, TransitionView{
			Seq: t.seq, At: ms(t.at), From: stateKind(t.from), To: stateKind(t.to), Reason: t.reason, Text: t.to.String(),
		})
	}
	cur.transitions = r.tseq
	for seq := max(cur.marks+1, oldest(r.mseq, markRing)); seq <= r.mseq; seq++ {
		f.Points = append(f.Points, pointView(r.marks[seq%markRing]))
	}
	cur.marks = r.mseq
	// The events: the newest limit of those the ring still holds,
	// the rest counted.
	limit := uint64(maxFramePoints)
	if !cur.sampled {
		limit, cur.sampled = eventRing, true
	}
	first := max(cur.events+1, oldest(r.eseq, eventRing), oldest(r.eseq, limit))
	f.Coalesced = first - 1 - cur.events
	for seq := first; seq <= r.eseq; seq++ {
		p := r.events[seq%eventRing]
		f.Points = append(f.Points, pointView(p))
		if r.eseq-seq < maxFrameChanged {
			f.Store.Changed = append(f.Store.Changed, p.key)
		}
	}
	cur.events = r.eseq
}

// oldest is the first sequence number of the newest n up to last.
func oldest(last, n uint64) uint64 { return last - min(last, n) + 1 }

// startSampling registers a new page and places its cursor so that its
// first frame carries the history the rings hold without counting the
// older past as coalesced; stopSampling unregisters it.
func (r *Recorder) startSampling() cursor {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sampling++
	return cursor{events: oldest(r.eseq, eventRing) - 1}
}

func (r *Recorder) stopSampling() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sampling--
}

func pointView(p point) PointView {
	return PointView{At: ms(p.at), Kind: pointKindNames[p.kind], Type: string(p.typ), Key: p.key, RV: p.rv, Items: p.n}
}

// stateView renders the current state.
func stateView(s reflector.State, since time.Duration) StateView {
	v := StateView{Kind: stateKind(s), Since: ms(since), Text: "starting"}
	if s != nil {
		v.Text = s.String()
	}
	if b, ok := s.(reflector.BackingOff); ok {
		v.Delay = ms(b.Delay)
	}
	return v
}

// stateKind names a state's type as the diagram does.
func stateKind(s reflector.State) string {
	switch s.(type) {
	case reflector.Listing:
		return "Listing"
	case reflector.StreamingList:
		return "StreamingList"
	case reflector.Watching:
		return "Watching"
	case reflector.BackingOff:
		return "BackingOff"
	case reflector.Stopped:
		return "Stopped"
	case nil:
		return "Starting"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", s), "reflector.")
}

// ms converts a duration to milliseconds, to a tenth.
func ms(d time.Duration) float64 {
	return float64(d.Round(100*time.Microsecond)) / float64(time.Millisecond)
}
