package reflector

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// Malformed events a ListerWatcher may hand over.
var (
	errNoAnswer         = errors.New("watch request got no answer before its deadline")
	errNoStatus         = errors.New("watch ERROR event without a Status")
	errUnknownEventType = errors.New("unknown watch event type")
)

// watch runs a Watching state: it opens a watch from s's resourceVersion (or
// continues the stream a streaming list left) and applies every event to the
// store until the stream ends, fails, or outlives its deadline.
func (r *Reflector[T]) watch(ctx context.Context, s Watching) outcome {
	// A watch's life counts from its request, so that one the server
	// ends at once is seen as short however long the request took.
	start := r.clock.Now()
	w, dl := r.handoff, r.handoffDeadline
	r.handoff, r.handoffDeadline = nil, nil
	if w == nil {
		opts := ListOptions{ResourceVersion: s.ResourceVersion, AllowWatchBookmarks: true, TimeoutSeconds: r.watchTimeout()}
		r.trace(WatchRequested{Options: opts})
		// No Known: every event of a watch from a resourceVersion is a
		// change, so there is never an unchanged object to reuse.
		var failed outcome
		w, dl, failed = r.openWatch(ctx, watchDeadline(opts.TimeoutSeconds), opts, nil, func(err error) outcome {
			return outcome{err: fmt.Errorf("%w: %w", errNoAnswer, err)}
		})
		if w == nil {
			return failed
		}
	}
	defer dl.end()
	defer w.Stop()

	resync := r.armResync()
	defer func() { resync.stop() }()

	rv, events := s.ResourceVersion, 0
	end := func(err error) outcome {
		elapsed := r.clock.Now().Sub(start)
		r.trace(WatchEnded{ResourceVersion: rv, Events: events, Duration: elapsed, Err: err})
		return outcome{err: err, rv: rv, opened: true, events: events, elapsed: elapsed}
	}
	for {
		select {
		case <-ctx.Done():
			return outcome{stopped: true}
		case <-dl.expired:
			// The server kept the watch open well past its
			// timeoutSeconds: end it and watch again.
			return end(nil)
		case <-resync.c:
			resync = r.resync(s, resync)
		case ev, ok := <-w.ResultChan():
			if !ok {
				if ctx.Err() != nil {
					return outcome{stopped: true}
				}
				if dl.hasExpired() {
					return end(nil)
				}
				if events == 0 && r.clock.Now().Sub(start) < shortWatch {
					return end(ErrWatchClosedEarly)
				}
				return end(nil)
			}
			events++
			r.markHeard()
			if err := r.checkRV(ev); err != nil {
				return end(err)
			}
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				if err := r.apply(s, ev); err != nil {
					return end(err)
				}
				rv = r.m.lastSync
			case watch.Bookmark:
				if meta.IsNil(ev.Object) {
					return end(fmt.Errorf("BOOKMARK event without an object"))
				}
				brv := ev.Object.GetObjectMeta().ResourceVersion
				r.advance(brv)
				rv = r.m.lastSync
				r.trace(BookmarkReceived{ResourceVersion: brv})
				if r.bookmarker != nil {
					r.bookmarker.Bookmark(rv)
				}
			case watch.Error:
				if ev.Status == nil {
					return end(errNoStatus)
				}
				return end(ev.Status)
			case watch.DecodeFailed:
				// The event is lost if the watch goes on: stop, and
				// watch again from the last event that arrived whole.
				return end(ev.Err)
			default:
				return end(fmt.Errorf("%w %q", errUnknownEventType, ev.Type))
			}
		}
	}
}

// checkRV refuses an ADDED, MODIFIED, DELETED or BOOKMARK event whose
// resourceVersion is not an unsigned integer when the reflector's own is
// one: the server numbers its versions, and an event it cannot place in
// that order cannot be applied without risking a version going backwards
// (12, then "zzz", then 5 would all pass a numeric check that cannot tell).
// Events of a server whose versions were never integers pass.
func (r *Reflector[T]) checkRV(ev watch.Event[T]) error {
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
	default:
		return nil
	}
	if meta.IsNil(ev.Object) || !isUint(r.m.lastSync) {
		return nil
	}
	m := ev.Object.GetObjectMeta()
	if isUint(m.ResourceVersion) {
		return nil
	}
	return fmt.Errorf("%w: %s %s has resourceVersion %q (last %s)", ErrInvalidResourceVersion,
		ev.Type, objectKey(m.Namespace, m.Name), truncateRV(m.ResourceVersion), r.m.lastSync)
}

// truncateRV shortens a resourceVersion quoted in an error.
func truncateRV(rv string) string {
	if len(rv) > 64 {
		return rv[:64] + "..."
	}
	return rv
}

// apply writes one ADDED, MODIFIED or DELETED event to the store, unless the
// store already holds a newer version of the object. A store that refuses
// the write is reported; the watch goes on. A nil object ends the watch.
func (r *Reflector[T]) apply(current State, ev watch.Event[T]) error {
	obj := ev.Object
	if meta.IsNil(obj) {
		return fmt.Errorf("%s event without an object", ev.Type)
	}
	m := obj.GetObjectMeta()
	if err := r.checkShard(m); err != nil {
		return err
	}
	key := objectKey(m.Namespace, m.Name)
	if stored, ok := r.stored(key); ok {
		if srv := stored.GetObjectMeta().ResourceVersion; olderRV(m.ResourceVersion, srv) {
			if r.tracing() {
				r.trace(EventSkipped{Type: ev.Type, Key: key, ResourceVersion: m.ResourceVersion, Stored: srv})
			}
			r.advance(m.ResourceVersion)
			return nil
		}
	}
	var err error
	switch ev.Type {
	case watch.Added:
		err = r.store.Add(obj)
	case watch.Modified:
		err = r.store.Update(obj)
	case watch.Deleted:
		err = r.store.Delete(obj)
	}
	if err != nil {
		r.report(&Error{Op: "store", Resource: r.opts.Name, Class: ClassNeedsHuman,
			Err: fmt.Errorf("%s %s: %w", ev.Type, key, err), Next: current})
	} else if r.tracingApplied() {
		r.traceApplied(EventApplied{Type: ev.Type, Key: key, ResourceVersion: m.ResourceVersion})
	}
	r.advance(m.ResourceVersion)
	return nil
}

// initialEventsEnd reports whether obj is the bookmark that ends a
// streaming list.
func initialEventsEnd(m *meta.ObjectMeta) bool {
	return m.Annotations[watch.InitialEventsEndAnnotation] == "true"
}
