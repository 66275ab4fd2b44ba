package reflector

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// A resource goes away when the server stops serving it: its
// CustomResourceDefinition is deleted, the version the reflector reads is
// no longer served, or the API group behind it is removed. A LIST or WATCH
// of the collection is then answered 404 NotFound (a collection never has
// a name, so a 404 on one can only mean the resource itself is missing).
//
// The reflector does not spin on it and does not report it over and over:
// it moves to the ResourceGone state, reports the 404 once through
// Options.OnError, optionally empties its store (Options.EmptyWhenGone),
// and probes with a consistent list after waits that grow from
// Backoff.Initial to Options.ResourceGoneMaxWait. A probe answered 404
// again is traced (StateChanged) but not reported; the first probe that
// succeeds replaces the store with what the server has now, the watch
// resumes from there, and the state is left.

// ResourceGone is the state of a reflector whose resource the server no
// longer serves. It waits Delay, then probes with a consistent list (or
// streaming list). Since is when the reflector first found the resource
// gone, Probes how many probes have failed since, Cause the 404 of the
// latest one.
type ResourceGone struct {
	Since  time.Time
	Probes int
	Delay  time.Duration
	Cause  error
}

func (ResourceGone) isState() {}

// String returns e.g. "resource gone (2 probes failed), next probe in 3.2s
// after: <cause>".
func (s ResourceGone) String() string {
	out := "resource gone"
	if s.Probes > 0 {
		out += " (" + strconv.Itoa(s.Probes) + " probes failed)"
	}
	return out + ", next probe in " + s.Delay.String() + causeString(s.Cause)
}

// DefaultResourceGoneMaxWait is the longest wait between two probes of a
// resource that is gone, when Options.ResourceGoneMaxWait is zero.
const DefaultResourceGoneMaxWait = 2 * time.Minute

// GoneError says that the server does not serve the reflector's resource
// (any more). Reflector.Gone returns it while the reflector is in the
// ResourceGone state, and the informer's SyncError reports it.
type GoneError struct {
	// Resource is Options.Name.
	Resource string
	// Since is when the reflector first found the resource gone.
	Since time.Time
	// Err is the server's latest 404.
	Err error
}

// Error returns "<resource>: resource not served since <time>: <err>".
func (e *GoneError) Error() string {
	return fmt.Sprintf("%s: resource not served since %s: %v", e.Resource, e.Since.UTC().Format(time.RFC3339), e.Err)
}

// Unwrap returns Err.
func (e *GoneError) Unwrap() error { return e.Err }

// Gone returns a *GoneError while the reflector finds its resource gone
// (from the first 404 of a list or watch until a list succeeds), and nil
// otherwise. It is safe to call from any goroutine.
func (r *Reflector[T]) Gone() *GoneError { return r.gone.Load() }

// gone returns the ResourceGone state after a 404 on the resource, and
// marks the resourceVersion unusable (the resource may come back with
// other objects).
func (m *machine) gone(cause error) State {
	m.unusable = true
	now := m.now()
	if m.goneSince.IsZero() {
		m.goneSince, m.goneProbes = now, 0
	} else {
		m.goneProbes++
	}
	d := m.backoff.cfg.Initial
	for i := 0; i < m.goneProbes && d < m.goneMax; i++ {
		d *= 2
	}
	d = min(d, m.goneMax)
	return ResourceGone{Since: m.goneSince, Probes: m.goneProbes, Delay: m.backoff.jitter(d), Cause: cause}
}

// noteGone keeps what Gone reports in step with the state the loop moves
// to: set on entering ResourceGone, cleared once a list has succeeded.
func (r *Reflector[T]) noteGone(next State) {
	switch s := next.(type) {
	case ResourceGone:
		r.gone.Store(&GoneError{Resource: r.opts.Name, Since: s.Since, Err: s.Cause})
	case Watching:
		if r.gone.Load() != nil {
			r.gone.Store(nil)
		}
	}
}

// waitGone runs a ResourceGone state: on entering it, it empties the store
// if Options.EmptyWhenGone asks and the store was synced; then it waits
// Delay.
func (r *Reflector[T]) waitGone(ctx context.Context, s ResourceGone) outcome {
	if s.Probes == 0 && r.opts.EmptyWhenGone && r.HasSynced() {
		buf := r.newBuffer()
		if err := r.replace(buf, r.m.lastSync); err != nil {
			buf.abort()
			r.report(&Error{Op: "store", Resource: r.opts.Name, Class: ClassNeedsHuman, Err: err, Next: s})
		}
	}
	return r.backOff(ctx, BackingOff{Delay: s.Delay})
}
