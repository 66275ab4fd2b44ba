package reflector

import (
	"fmt"
	"strconv"
	"time"
)

// State is one state of a Reflector's loop. Each state carries the data it
// needs (the resourceVersion to list or watch at, the wait and what follows
// it), so it can be printed, traced and compared in tests. The states are
// Listing, StreamingList, Watching, BackingOff, ResourceGone (gone.go) and
// Stopped; the function
// that moves between them is machine.next in transitions.go.
type State interface {
	fmt.Stringer
	isState()
}

// Listing is a paginated LIST at ResourceVersion (read per Match), followed
// by one Replace of the store.
//
// ResourceVersion is "0" for the first list (any state the server has
// cached), the last synced resourceVersion with MatchNotOlderThan for a
// relist, or "" (a consistent read) after a 410, a too-large resourceVersion
// or a stale list.
type Listing struct {
	ResourceVersion string
	Match           ResourceVersionMatch
	// Cause is why the reflector lists again; nil for the first list.
	Cause error
}

// StreamingList is a WATCH with sendInitialEvents=true: an ADDED event per
// object, then the k8s.io/initial-events-end bookmark, at which the store is
// replaced and the same stream goes on as a Watching state.
//
// ResourceVersion is "" (a consistent read) or the last synced
// resourceVersion (not older than it). Attempt counts the tries since the
// last success, from 1.
type StreamingList struct {
	ResourceVersion string
	Attempt         int
	Cause           error
}

// Watching is a WATCH from ResourceVersion with bookmarks. Continued is true
// when the watch is the stream a streaming list opened, rather than a new
// request.
type Watching struct {
	ResourceVersion string
	Continued       bool
}

// BackingOff waits Delay, then goes to Then. Cause is the error that made
// the reflector wait.
type BackingOff struct {
	Delay time.Duration
	Then  State
	Cause error
}

// Stopped is the final state: the context was cancelled.
type Stopped struct{}

func (Listing) isState()       {}
func (StreamingList) isState() {}
func (Watching) isState()      {}
func (BackingOff) isState()    {}
func (Stopped) isState()       {}

// rvString prints a resourceVersion so that "" is visible.
func rvString(rv string) string {
	if rv == "" {
		return `rv=""`
	}
	return "rv=" + rv
}

// String returns e.g. `listing rv=0` or `listing rv="" after: <cause>`.
func (s Listing) String() string {
	out := "listing " + rvString(s.ResourceVersion)
	if s.Match != MatchUnset {
		out += " match=" + string(s.Match)
	}
	return out + causeString(s.Cause)
}

// String returns e.g. `streaming list rv="" attempt 1`.
func (s StreamingList) String() string {
	return "streaming list " + rvString(s.ResourceVersion) + " attempt " + strconv.Itoa(s.Attempt) + causeString(s.Cause)
}

// String returns e.g. `watching rv=17`.
func (s Watching) String() string {
	out := "watching " + rvString(s.ResourceVersion)
	if s.Continued {
		out += " (continuing the streaming list)"
	}
	return out
}

// String returns e.g. `backing off 1.6s after: <cause>, then watching rv=17`.
func (s BackingOff) String() string {
	then := "?"
	if s.Then != nil {
		then = stripCauses(s.Then).String()
	}
	return "backing off " + s.Delay.String() + causeString(s.Cause) + ", then " + then
}

// String returns "stopped".
func (Stopped) String() string { return "stopped" }

// causeString renders an optional cause.
func causeString(err error) string {
	if err == nil {
		return ""
	}
	return " after: " + err.Error()
}

// stripCauses clears the Cause fields of a state (and of what follows a
// BackingOff), so that a table can compare states by their data.
func stripCauses(s State) State {
	switch s := s.(type) {
	case Listing:
		s.Cause = nil
		return s
	case StreamingList:
		s.Cause = nil
		return s
	case BackingOff:
		s.Cause = nil
		s.Then = stripCauses(s.Then)
		return s
	case ResourceGone:
		s.Cause = nil
		return s
	}
	return s
}
