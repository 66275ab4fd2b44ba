package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/kubecache/kubecache/reflector"
)

// traceStats counts what the reflector reported to its trace hook, for
// watch's summary: lists, relists, watches, reconnects, bookmarks. It is
// written from the reflector's goroutine and read from any.
type traceStats struct {
	// mu guards every field below.
	mu sync.Mutex
	// replaces counts the lists written to the store; every one after the
	// first is a relist.
	replaces int
	// watches counts the watch requests; every one after the first is a
	// reconnect.
	watches   int
	events    int
	bookmarks int
}

func newTraceStats() *traceStats { return &traceStats{} }

// observe is a trace hook.
func (s *traceStats) observe(ev reflector.TraceEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev := ev.(type) {
	case reflector.Replaced:
		s.replaces++
	case reflector.WatchRequested:
		s.watches++
	case reflector.EventApplied:
		if !ev.Initial {
			s.events++
		}
	case reflector.BookmarkReceived:
		s.bookmarks++
	}
}

// relists returns the number of lists after the first.
func (s *traceStats) relists() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.replaces-1, 0)
}

// reconnects returns the number of watch requests after the first.
func (s *traceStats) reconnects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.watches-1, 0)
}

// summary renders the counts.
func (s *traceStats) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%s and %s applied, %s, %s", plural(s.events, "watch event"), plural(s.bookmarks, "bookmark"),
		plural(max(s.replaces-1, 0), "relist"), plural(max(s.watches-1, 0), "reconnect"))
}

// plural renders "1 relist", "2 relists".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// progress draws the progress of the first list as a status line: objects
// so far, pages, rate. It is driven by the trace hook (pages of a list,
// initial events of a streaming list), so it runs on the reflector's
// goroutine and needs no lock; the console serializes the drawing.
type progress struct {
	c    *console
	now  func() time.Time
	what string
	// active is true while the first list runs; done once it is in the
	// store.
	active, done   bool
	started, drawn time.Time
	objects, pages int
	streaming      bool
}

// progressEvery bounds how often the initial events of a streaming list
// redraw the line.
const progressEvery = 100 * time.Millisecond

// observe is a trace hook.
func (p *progress) observe(ev reflector.TraceEvent) {
	if p.done {
		return
	}
	switch ev := ev.(type) {
	case reflector.ListRequested:
		if ev.Page == 1 {
			p.begin(false)
		}
	case reflector.ListRestarted:
		p.begin(false)
	case reflector.WatchRequested:
		if ev.Options.SendInitialEvents {
			p.begin(true)
		}
	case reflector.ListPageReceived:
		p.objects += ev.Items
		p.pages++
		p.draw()
	case reflector.EventApplied:
		if ev.Initial {
			p.objects++
			if p.now().Sub(p.drawn) >= progressEvery {
				p.draw()
			}
		}
	case reflector.Replaced:
		p.done = true
		p.c.setStatus("")
	}
}

func (p *progress) begin(streaming bool) {
	p.active, p.streaming = true, streaming
	p.started = p.now()
	p.objects, p.pages = 0, 0
}

func (p *progress) draw() {
	if !p.active {
		return
	}
	p.drawn = p.now()
	line := fmt.Sprintf("listing %s: %d objects, %s", p.what, p.objects, plural(p.pages, "page"))
	if p.streaming {
		line = fmt.Sprintf("streaming list of %s: %d objects", p.what, p.objects)
	}
	if secs := p.drawn.Sub(p.started).Seconds(); secs > 0 {
		line += fmt.Sprintf(", %.0f objects/s", float64(p.objects)/secs)
	}
	p.c.setStatus(line)
}

// hooks combines trace hooks into one.
func hooks(fns ...func(reflector.TraceEvent)) func(reflector.TraceEvent) {
	return func(ev reflector.TraceEvent) {
		for _, f := range fns {
			if f != nil {
				f(ev)
			}
		}
	}
}
