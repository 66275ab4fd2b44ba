package reflector

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// buffer collects the items of one list, or of the initial events of a
// streaming list, for a single Replace. It holds only decoded objects (the
// raw response is never kept) and, for an object the store already holds at
// the same resourceVersion, the stored object itself.
type buffer[T meta.Object] struct {
	r     *Reflector[T]
	items []T
	// reused counts items that are the store's own object (unchanged);
	// kept counts items replaced by the store's newer version.
	reused, kept int
}

// newBuffer returns an empty buffer.
func (r *Reflector[T]) newBuffer() *buffer[T] { return &buffer[T]{r: r} }

// add takes one item. An item older than the store's version of the same
// object is replaced by the stored one, so that no resourceVersion goes
// backwards.
func (b *buffer[T]) add(obj T) error {
	if isNil(obj) {
		return fmt.Errorf("item %d is nil", len(b.items))
	}
	m := obj.GetObjectMeta()
	if stored, ok := b.r.stored(objectKey(m.Namespace, m.Name)); ok {
		sm := stored.GetObjectMeta()
		switch {
		case sm == m:
			b.reused++
		case olderRV(m.ResourceVersion, sm.ResourceVersion):
			if b.r.tracing() {
				b.r.trace(EventSkipped{Type: watch.Added, Key: objectKey(m.Namespace, m.Name),
					ResourceVersion: m.ResourceVersion, Stored: sm.ResourceVersion})
			}
			b.kept++
			obj = stored
		}
	}
	b.items = append(b.items, obj)
	return nil
}

// list runs a Listing state: a paginated LIST at s's resourceVersion, each
// item handed to a buffer as it is decoded, then one Replace.
func (r *Reflector[T]) list(ctx context.Context, s Listing) outcome {
	base := ListOptions{ResourceVersion: s.ResourceVersion, ResourceVersionMatch: s.Match}
	if r.opts.PageSize > 0 {
		base.Limit = r.opts.PageSize
	}
	buf := r.newBuffer()
	opts := base
	page, listRV, restarted := 0, "", false
	for {
		page++
		r.trace(ListRequested{Page: page, Options: opts})
		before := len(buf.items)
		lm, err := r.lw.List(ctx, opts, r.known, buf.add)
		if ctx.Err() != nil {
			return outcome{stopped: true}
		}
		if err != nil {
			if opts.Continue != "" && !restarted && Classify(err) == ClassExpired {
				// The continue token expired with the snapshot it
				// pinned. List everything again in one request, at
				// the same resourceVersion.
				r.trace(ListRestarted{AfterPage: page - 1, Cause: err})
				buf = r.newBuffer()
				opts, page, listRV, restarted = base, 0, "", true
				opts.Limit = 0
				continue
			}
			return outcome{err: err}
		}
		r.trace(ListPageReceived{Page: page, Items: len(buf.items) - before, ResourceVersion: lm.ResourceVersion, More: lm.Continue != ""})
		if listRV == "" {
			// Every page reports the first page's resourceVersion.
			listRV = lm.ResourceVersion
		}
		if lm.Continue == "" {
			break
		}
		if lm.Continue == opts.Continue {
			return outcome{err: fmt.Errorf("%w after page %d", ErrContinueLoop, page)}
		}
		opts = ListOptions{Limit: base.Limit, Continue: lm.Continue}
	}
	if listRV == "" {
		return outcome{err: ErrNoResourceVersion}
	}
	consistent := s.ResourceVersion == "" && s.Match == MatchUnset
	if !consistent && olderRV(listRV, r.m.lastSync) {
		r.trace(StaleDiscarded{ResourceVersion: listRV, LastSynced: r.m.lastSync})
		return outcome{err: &StaleError{ResourceVersion: listRV, LastSynced: r.m.lastSync}}
	}
	if err := r.replace(buf, listRV); err != nil {
		return outcome{err: err}
	}
	return outcome{rv: listRV}
}
