package reflector

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// streamingList runs a StreamingList state: a WATCH with
// sendInitialEvents=true whose ADDED events fill a buffer until the
// k8s.io/initial-events-end bookmark, at which the store is replaced and the
// open stream is handed to the Watching state that follows. Initial events
// do not move the resume point: they carry each object's own
// resourceVersion, not the snapshot's.
func (r *Reflector[T]) streamingList(ctx context.Context, s StreamingList) outcome {
	opts := ListOptions{
		ResourceVersion:      s.ResourceVersion,
		ResourceVersionMatch: MatchNotOlderThan,
		SendInitialEvents:    true,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeout(),
	}
	r.trace(WatchRequested{Options: opts})
	// Before anything was synced there is nothing to reuse: do not peek.
	var known Known[T]
	if r.m.lastSync != "" {
		known = r.known
	}
	w, dl, failed := r.openWatch(ctx, r.opts.InitialEventsTimeout, opts, known, func(err error) outcome {
		// A request that never got an answer: as a stream that never
		// finished, give up on streaming.
		return outcome{err: fmt.Errorf("%w (no answer to the request): %w", ErrInitialEventsTimeout, err), opened: true}
	})
	if w == nil {
		return failed
	}
	start := r.clock.Now()
	handedOff := false
	defer func() {
		if !handedOff {
			w.Stop()
			dl.end()
		}
	}()

	buf := r.newBuffer()
	defer buf.abort()
	fail := func(err error) outcome { return outcome{err: err, opened: true, events: buf.n} }
	for {
		select {
		case <-ctx.Done():
			return outcome{stopped: true}
		case <-dl.expired:
			return fail(fmt.Errorf("%w (%v, %d initial events)", ErrInitialEventsTimeout, r.opts.InitialEventsTimeout, buf.n))
		case ev, ok := <-w.ResultChan():
			if !ok {
				if ctx.Err() != nil {
					return outcome{stopped: true}
				}
				if dl.hasExpired() {
					return fail(fmt.Errorf("%w (%v, %d initial events)", ErrInitialEventsTimeout, r.opts.InitialEventsTimeout, buf.n))
				}
				return fail(fmt.Errorf("%w (after %d initial events)", ErrInitialEventsIncomplete, buf.n))
			}
			switch ev.Type {
			case watch.Added:
				if err := buf.add(ev.Object); err != nil {
					return fail(err)
				}
				if r.tracingApplied() {
					m := ev.Object.GetObjectMeta()
					r.traceApplied(EventApplied{Type: ev.Type, Key: objectKey(m.Namespace, m.Name), ResourceVersion: m.ResourceVersion, Initial: true})
				}
			case watch.Modified, watch.Deleted:
				return fail(fmt.Errorf("%w: %s event before the initial-events-end bookmark", ErrNotStreaming, ev.Type))
			case watch.Bookmark:
				if meta.IsNil(ev.Object) {
					return fail(fmt.Errorf("BOOKMARK event without an object"))
				}
				m := ev.Object.GetObjectMeta()
				end := initialEventsEnd(m)
				r.trace(BookmarkReceived{ResourceVersion: m.ResourceVersion, InitialEventsEnd: end})
				if !end {
					continue
				}
				rv := m.ResourceVersion
				if rv == "" {
					return fail(fmt.Errorf("initial-events-end bookmark: %w", ErrNoResourceVersion))
				}
				if s.ResourceVersion != "" && olderRV(rv, r.m.lastSync) {
					r.trace(StaleDiscarded{ResourceVersion: rv, LastSynced: r.m.lastSync})
					return fail(&StaleError{ResourceVersion: rv, LastSynced: r.m.lastSync})
				}
				if err := r.replace(buf, rv); err != nil {
					return fail(err)
				}
				// The same stream goes on as the watch, bounded now by
				// the watch's own deadline.
				dl.extend(start.Add(watchDeadline(opts.TimeoutSeconds)).Sub(r.clock.Now()))
				handedOff = true
				r.handoff, r.handoffDeadline = w, dl
				return outcome{rv: rv, opened: true}
			case watch.Error:
				if ev.Status == nil {
					return fail(errNoStatus)
				}
				return fail(ev.Status)
			case watch.DecodeFailed:
				// An initial event was lost: start over.
				return fail(ev.Err)
			default:
				return fail(fmt.Errorf("%w %q", errUnknownEventType, ev.Type))
			}
		}
	}
}
