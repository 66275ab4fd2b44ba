package reflector

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/watch"
)

// TraceEvent is one step a Reflector reports to Options.Trace: every state
// change, every request, page, bookmark, applied event, Replace and resync.
// The concrete types are listed below; String renders each as one line for
// an explain mode ("LIST rv=0 limit=500", "page 1: 500 items", ...).
type TraceEvent interface {
	fmt.Stringer
	isTraceEvent()
}

// StateChanged: the reflector moved from one state to the next.
type StateChanged struct {
	From, To State
}

// ListRequested: a LIST request is about to be sent (one per page).
type ListRequested struct {
	Page    int
	Options ListOptions
}

// ListPageReceived: a page of a list arrived and its items were handed to
// the store's buffer. More reports a continue token.
type ListPageReceived struct {
	Page            int
	Items           int
	ResourceVersion string
	More            bool
	// Wire is the page's encoding ("" when the ListerWatcher does not
	// say: one not built by NewListWatch), ContentEncoding the
	// compression it came in ("gzip", decoded by the client; "" for
	// none).
	Wire            rest.Wire
	ContentEncoding string
}

// ListRestarted: a continue token expired (410) in the middle of a list;
// the list starts again as one full request without limit.
type ListRestarted struct {
	AfterPage int
	Cause     error
}

// Replaced: the store was replaced with Objects objects at
// ResourceVersion; Reused of them were kept from the store because their
// resourceVersion had not changed, and Kept were newer in the store than in
// the list and were kept as they were.
type Replaced struct {
	Objects         int
	Reused          int
	Kept            int
	ResourceVersion string
}

// StaleDiscarded: a list or streaming list older than the last synced
// resourceVersion was thrown away instead of moving the store back.
type StaleDiscarded struct {
	ResourceVersion string
	LastSynced      string
}

// WatchRequested: a WATCH request is about to be sent.
type WatchRequested struct {
	Options ListOptions
}

// EventApplied: a watch event was written to the store (or, with Initial,
// to the buffer of a streaming list).
type EventApplied struct {
	Type            watch.EventType
	Key             string
	ResourceVersion string
	Initial         bool
}

// EventSkipped: a watch event or list item older than what the store holds
// for that key was not applied, so the object's resourceVersion never goes
// backwards.
type EventSkipped struct {
	Type            watch.EventType
	Key             string
	ResourceVersion string
	Stored          string
}

// BookmarkReceived: the server reached ResourceVersion; InitialEventsEnd
// marks the bookmark that ends a streaming list.
type BookmarkReceived struct {
	ResourceVersion  string
	InitialEventsEnd bool
}

// WatchEnded: a watch stream ended, after Events events and Duration, with
// the resume point at ResourceVersion. Err is nil for a normal end (the
// server's timeout, a clean EOF).
type WatchEnded struct {
	ResourceVersion string
	Events          int
	Duration        time.Duration
	Err             error
}

// Resynced: the store's Resync was called.
type Resynced struct{}

func (StateChanged) isTraceEvent()     {}
func (ListRequested) isTraceEvent()    {}
func (ListPageReceived) isTraceEvent() {}
func (ListRestarted) isTraceEvent()    {}
func (Replaced) isTraceEvent()         {}
func (StaleDiscarded) isTraceEvent()   {}
func (WatchRequested) isTraceEvent()   {}
func (EventApplied) isTraceEvent()     {}
func (EventSkipped) isTraceEvent()     {}
func (BookmarkReceived) isTraceEvent() {}
func (WatchEnded) isTraceEvent()       {}
func (Resynced) isTraceEvent()         {}

// String returns "<from> -> <to>".
func (e StateChanged) String() string { return e.From.String() + " -> " + e.To.String() }

// String returns e.g. "LIST rv=0 limit=500" or "LIST page 2 continue limit=500".
func (e ListRequested) String() string {
	var b strings.Builder
	b.WriteString("LIST")
	if e.Page > 1 {
		b.WriteString(" page " + strconv.Itoa(e.Page))
	}
	writeOptions(&b, e.Options)
	return b.String()
}

// String returns e.g. "page 1: 500 items rv=17, more", or with the
// encoding "page 1: 500 items rv=17 (protobuf, gzip)".
func (e ListPageReceived) String() string {
	out := "page " + strconv.Itoa(e.Page) + ": " + strconv.Itoa(e.Items) + " items " + rvString(e.ResourceVersion)
	if e.Wire != "" {
		out += " (" + string(e.Wire) + encodingSuffix(e.ContentEncoding) + ")"
	}
	if e.More {
		out += ", more"
	}
	return out
}

// String returns e.g. "continue token expired after page 3, full list: <cause>".
func (e ListRestarted) String() string {
	return "continue token expired after page " + strconv.Itoa(e.AfterPage) + ", listing again in one request: " + e.Cause.Error()
}

// String returns e.g. "REPLACE 10000 objects (9990 reused) rv=17".
func (e Replaced) String() string {
	out := "REPLACE " + strconv.Itoa(e.Objects) + " objects"
	if e.Reused > 0 || e.Kept > 0 {
		out += " (" + strconv.Itoa(e.Reused) + " reused, " + strconv.Itoa(e.Kept) + " newer in store)"
	}
	return out + " " + rvString(e.ResourceVersion)
}

// String returns e.g. "discard stale list rv=5 (last synced rv=9)".
func (e StaleDiscarded) String() string {
	return "discard stale list " + rvString(e.ResourceVersion) + " (last synced " + rvString(e.LastSynced) + ")"
}

// String returns e.g. "WATCH rv=17 timeoutSeconds=412 allowWatchBookmarks".
func (e WatchRequested) String() string {
	var b strings.Builder
	b.WriteString("WATCH")
	writeOptions(&b, e.Options)
	return b.String()
}

// String returns e.g. "MODIFIED default/a rv=18".
func (e EventApplied) String() string {
	out := string(e.Type) + " " + e.Key + " " + rvString(e.ResourceVersion)
	if e.Initial {
		out = "initial " + out
	}
	return out
}

// String returns e.g. "skip MODIFIED default/a rv=5: store has rv=7".
func (e EventSkipped) String() string {
	return "skip " + string(e.Type) + " " + e.Key + " " + rvString(e.ResourceVersion) + ": store has " + rvString(e.Stored)
}

// String returns e.g. "BOOKMARK rv=20 (initial-events-end)".
func (e BookmarkReceived) String() string {
	out := "BOOKMARK " + rvString(e.ResourceVersion)
	if e.InitialEventsEnd {
		out += " (initial-events-end)"
	}
	return out
}

// String returns e.g. "watch ended after 3 events in 5m0s at rv=20".
func (e WatchEnded) String() string {
	out := "watch ended after " + strconv.Itoa(e.Events) + " events in " + e.Duration.String() + " at " + rvString(e.ResourceVersion)
	if e.Err != nil {
		out += ": " + e.Err.Error()
	}
	return out
}

// String returns "RESYNC".
func (Resynced) String() string { return "RESYNC" }

// writeOptions appends the set options in the order a reader scans them.
func writeOptions(b *strings.Builder, o ListOptions) {
	if o.Continue != "" {
		b.WriteString(" continue")
	} else {
		b.WriteString(" " + rvString(o.ResourceVersion))
	}
	if o.ResourceVersionMatch != MatchUnset {
		b.WriteString(" match=" + string(o.ResourceVersionMatch))
	}
	if o.Limit > 0 {
		b.WriteString(" limit=" + strconv.FormatInt(o.Limit, 10))
	}
	if o.LabelSelector != "" {
		b.WriteString(" labelSelector=" + o.LabelSelector)
	}
	if o.FieldSelector != "" {
		b.WriteString(" fieldSelector=" + o.FieldSelector)
	}
	if o.TimeoutSeconds > 0 {
		b.WriteString(" timeoutSeconds=" + strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	if o.SendInitialEvents {
		b.WriteString(" sendInitialEvents")
	}
	if o.AllowWatchBookmarks {
		b.WriteString(" allowWatchBookmarks")
	}
}
