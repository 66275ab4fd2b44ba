package main

import (
	"fmt"
	"time"

	"github.com/kubecache/kubecache/reflector"
)

// narrator is --explain: it prints every step the reflector reports to its
// trace hook, as it happens, with a short gloss where the step is the
// moment a reader of the list/watch story should notice. It is made only
// of what the trace hook says: there is no second account of events kept
// beside the reflector's own.
//
// A narrator is called only from the reflector's goroutine (the trace
// hook's contract), so its fields need no lock; output goes through the
// console, which serializes it with the other goroutines' lines.
type narrator struct {
	c        *console
	toStdout bool
	tl       timeline
	// shown and hidden count the initial events of the streaming list in
	// progress that were printed and those that were only counted: a
	// large streaming list is narrated by its first events and a count.
	shown, hidden int
}

// maxInitialShown is how many initial events of one streaming list are
// printed one by one.
const maxInitialShown = 5

func newNarrator(c *console, toStdout bool, tl timeline) *narrator {
	return &narrator{c: c, toStdout: toStdout, tl: tl}
}

// timeline is the first column of narrated lines: who speaks, and when,
// counted from the start of the run ("reflector  +1.503s").
type timeline struct {
	start time.Time
	now   func() time.Time
}

func newTimeline(now func() time.Time) timeline { return timeline{start: now(), now: now} }

// prefix returns the column for a line said by who.
func (t timeline) prefix(who string) string {
	return fmt.Sprintf("%-9s %9s  ", who, fmt.Sprintf("+%.3fs", t.now().Sub(t.start).Seconds()))
}

// trace is the reflector's trace hook.
func (n *narrator) trace(ev reflector.TraceEvent) {
	switch ev := ev.(type) {
	case reflector.EventApplied:
		if ev.Initial {
			if n.shown >= maxInitialShown {
				n.hidden++
				return
			}
			n.shown++
		}
	case reflector.BookmarkReceived:
		if ev.InitialEventsEnd && n.hidden > 0 {
			n.say(fmt.Sprintf("… and %d more initial ADDED events", n.hidden), "")
		}
		if ev.InitialEventsEnd {
			n.shown, n.hidden = 0, 0
		}
	case reflector.WatchRequested:
		n.shown, n.hidden = 0, 0
	}
	n.say(render(ev), gloss(ev))
}

// render prints a step as the reflector does, with durations rounded to
// the millisecond and a state change without the causes that the step
// before it already told.
func render(ev reflector.TraceEvent) string {
	switch ev := ev.(type) {
	case reflector.StateChanged:
		return bareState(ev.From).String() + " -> " + bareState(ev.To).String()
	case reflector.WatchEnded:
		ev.Duration = ev.Duration.Round(time.Millisecond)
		return ev.String()
	}
	return ev.String()
}

// bareState returns s without its cause, and a wait rounded to the
// millisecond.
func bareState(s reflector.State) reflector.State {
	switch s := s.(type) {
	case reflector.Listing:
		s.Cause = nil
		return s
	case reflector.StreamingList:
		s.Cause = nil
		return s
	case reflector.BackingOff:
		s.Cause = nil
		s.Delay = s.Delay.Round(time.Millisecond)
		s.Then = bareState(s.Then)
		return s
	}
	return s
}

// say prints one narrated step.
func (n *narrator) say(what, why string) {
	line := n.tl.prefix("reflector") + what
	if why != "" {
		line += "  — " + why
	}
	if n.toStdout {
		n.c.outf("%s", line)
	} else {
		n.c.errf("%s", line)
	}
}

// gloss explains the steps a learner should notice; "" for the others.
func gloss(ev reflector.TraceEvent) string {
	switch ev := ev.(type) {
	case reflector.ListRequested:
		o := ev.Options
		switch {
		case ev.Page > 1:
			return "the next page, from the continue token"
		case o.ResourceVersion == "0":
			return "the first list: rv=0 lets the server answer from its cache (which may ignore limit)"
		case o.ResourceVersion == "":
			return "a consistent read: the newest state, from storage"
		case o.ResourceVersionMatch == reflector.MatchNotOlderThan:
			return "a relist, not older than what the store holds"
		}
	case reflector.ListPageReceived:
		if ev.More {
			return "more to come: the server sent a continue token"
		}
	case reflector.Replaced:
		return "the store now holds exactly the list, swapped in one step"
	case reflector.WatchRequested:
		if ev.Options.SendInitialEvents {
			return "a streaming list: each object as an ADDED event, then a bookmark"
		}
		return "every change after rv=" + ev.Options.ResourceVersion + ", as it happens"
	case reflector.BookmarkReceived:
		if ev.InitialEventsEnd {
			return "the streaming list is complete"
		}
		return "nothing to apply: the server has reached this rv, a reconnect resumes from here"
	case reflector.WatchEnded:
		switch {
		case ev.Err == nil:
			return "the server ended the watch (its timeout): watch again from rv=" + ev.ResourceVersion
		case reflector.Classify(ev.Err) == reflector.ClassExpired:
			return "410: the server no longer has that history; only a relist can bring the store up to date"
		}
		return "the stream broke: reconnect after a backoff, from the same rv"
	case reflector.StateChanged:
		switch to := ev.To.(type) {
		case reflector.BackingOff:
			return "wait, then try again"
		case reflector.Listing:
			if to.Cause != nil {
				return "relist"
			}
		case reflector.StreamingList:
			if to.Cause != nil {
				return "relist"
			}
		case reflector.Watching:
			if _, ok := ev.From.(reflector.BackingOff); ok {
				return "reconnect"
			}
		}
	case reflector.StaleDiscarded:
		return "never move the store back in time"
	}
	return ""
}
