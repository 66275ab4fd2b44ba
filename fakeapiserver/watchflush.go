package fakeapiserver

import "time"

// Flush pacing: when a watch is idle its next event is flushed at once;
// when events arrive in bursts (the previous flush carried several and was
// recent) the next flush waits until watchFlushInterval after the previous
// one, so one write carries everything that arrived meanwhile. Under a
// sustained stream each watcher then makes at most one write per interval
// instead of one per event, while a lone event is never delayed. The pacing
// uses the real clock: it is a transport detail, not part of the watch's
// semantics, so tests with a FakeClock still see every event promptly.

// watchFlushInterval is the shortest gap between two flushes of one watch
// while it is streaming bursts.
const watchFlushInterval = 5 * time.Millisecond

// flushPacer decides when a watch's buffered events go out. It belongs to
// one watch goroutine and is not safe for concurrent use.
type flushPacer struct {
	last      time.Time
	lastBatch int
	timer     *time.Timer
	// armed: timer runs and its channel is waited on.
	armed bool
}

// hold reports whether a flush of batch events now should wait: the
// previous flush carried several events and was less than an interval ago.
func (p *flushPacer) hold(now time.Time) bool {
	return p.lastBatch >= 2 && now.Sub(p.last) < watchFlushInterval
}

// arm starts the timer that ends a hold, if it is not running.
func (p *flushPacer) arm(now time.Time) {
	if p.armed {
		return
	}
	d := watchFlushInterval - now.Sub(p.last)
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	p.armed = true
}

// c is the channel that fires when a hold ends (nil when none is armed).
func (p *flushPacer) c() <-chan time.Time {
	if !p.armed {
		return nil
	}
	return p.timer.C
}

// flushed records a flush of batch events at now and disarms the timer.
func (p *flushPacer) flushed(now time.Time, batch int) {
	p.last, p.lastBatch = now, batch
	if p.armed {
		p.timer.Stop()
		p.armed = false
	}
}

// stop releases the timer.
func (p *flushPacer) stop() {
	if p.timer != nil {
		p.timer.Stop()
	}
}
