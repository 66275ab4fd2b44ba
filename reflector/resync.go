package reflector

import "time"

// resyncTimer is the pending resync of a waiting step; c is nil when no
// resync is due (no period, or not synced yet).
type resyncTimer struct {
	c    <-chan time.Time
	stop func() bool
}

// armResync returns a timer for the next resync.
func (r *Reflector[T]) armResync() resyncTimer {
	if r.nextResync.IsZero() {
		return resyncTimer{stop: func() bool { return false }}
	}
	c, stop := r.clock.NewTimer(r.nextResync.Sub(r.clock.Now()))
	return resyncTimer{c: c, stop: stop}
}

// resync calls the store's Resync, schedules the next one and returns its
// timer. current is the state the reflector stays in.
func (r *Reflector[T]) resync(current State, t resyncTimer) resyncTimer {
	t.stop()
	if err := r.resyncer.Resync(); err != nil {
		r.report(&Error{Op: "resync", Resource: r.opts.Name, Class: ClassNeedsHuman, Err: err, Next: current})
	}
	r.trace(Resynced{})
	r.nextResync = r.clock.Now().Add(r.opts.ResyncPeriod)
	return r.armResync()
}
