package reflector

import (
	"context"
	"fmt"
	"hash/maphash"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// buffer collects the items of one list, or of the initial events of a
// streaming list, for a single replace of the store. It never holds the raw
// response: items arrive decoded, one at a time. With a BulkReplacer store
// each item goes straight into the store's staged contents; otherwise the
// buffer keeps a slice for Replace. An item the store already holds at the
// same resourceVersion is the stored object itself, not a second copy.
type buffer[T meta.Object] struct {
	r *Reflector[T]
	// repl is the store's replacement in progress; nil when the store is
	// not a BulkReplacer and items collects the list instead.
	repl  cache.Replacement[T]
	items []T
	// n counts the items taken; reused counts those that are the store's
	// own unchanged object; kept counts those replaced by the store's
	// newer version.
	n, reused, kept int
}

// newBuffer starts a buffer, and the store's replacement if it has one.
func (r *Reflector[T]) newBuffer() *buffer[T] {
	b := &buffer[T]{r: r}
	if br, ok := r.store.(BulkReplacer[T]); ok {
		b.repl = br.BeginReplace()
	}
	return b
}

// current returns the object the store holds now under namespace/name.
func (b *buffer[T]) current(namespace, name string) (T, bool) {
	if b.repl != nil {
		obj, ok := b.repl.Lookup(namespace, name)
		return obj, ok && !meta.IsNil(obj)
	}
	return b.r.stored(objectKey(namespace, name))
}

// knownFunc returns the Known to hand a synchronous List: the store's
// object if unchanged. It is nil when the store cannot be read. It must only
// be called on the reflector's goroutine.
func (b *buffer[T]) knownFunc() Known[T] {
	if b.repl == nil && b.r.lookup == nil {
		return nil
	}
	return func(namespace, name, rv string) (T, bool) {
		obj, ok := b.current(namespace, name)
		if !ok || rv == "" || obj.GetObjectMeta().ResourceVersion != rv {
			var zero T
			return zero, false
		}
		return obj, true
	}
}

// add takes one item. An item older than the store's version of the same
// object is replaced by the stored one, so that no resourceVersion goes
// backwards. An item without a name cannot be stored under any key: it is
// reported and left out, and the list goes on.
func (b *buffer[T]) add(obj T) error {
	if meta.IsNil(obj) {
		return fmt.Errorf("item %d is nil", b.n)
	}
	if b.n >= b.r.opts.MaxListItems {
		return fmt.Errorf("%w: more than %d objects (Options.MaxListItems)", ErrListTooLarge, b.r.opts.MaxListItems)
	}
	m := obj.GetObjectMeta()
	if err := b.r.checkShard(m); err != nil {
		return err
	}
	if m.Name == "" {
		b.r.report(&Error{Op: "store", Resource: b.r.opts.Name, Class: ClassNeedsHuman,
			Err: fmt.Errorf("item %d (namespace %q, rv=%s) has no name; left out", b.n, m.Namespace, m.ResourceVersion)})
		return nil
	}
	if stored, ok := b.current(m.Namespace, m.Name); ok {
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
	if b.repl != nil {
		if err := b.repl.Add(obj); err != nil {
			return fmt.Errorf("stage %s: %w", objectKey(m.Namespace, m.Name), err)
		}
	} else {
		b.items = append(b.items, obj)
	}
	b.n++
	return nil
}

// commit replaces the store's contents with the buffer's, as read at rv.
func (b *buffer[T]) commit(rv string) error {
	if b.repl != nil {
		return b.repl.Commit(rv)
	}
	items := b.items
	b.items = nil
	return b.r.store.Replace(items, rv)
}

// abort drops the buffer. It is harmless after commit.
func (b *buffer[T]) abort() {
	if b.repl != nil {
		b.repl.Abort()
	}
	b.items = nil
}

// list runs a Listing state: a paginated LIST at s's resourceVersion, each
// item handed to a buffer as it is decoded, then one Replace.
func (r *Reflector[T]) list(ctx context.Context, s Listing) outcome {
	base := ListOptions{ResourceVersion: s.ResourceVersion, ResourceVersionMatch: s.Match}
	if r.opts.PageSize > 0 {
		base.Limit = r.opts.PageSize
	}
	buf := r.newBuffer()
	defer func() { buf.abort() }()
	// Before anything was synced there is nothing to reuse: do not peek.
	reuse := r.m.lastSync != ""
	opts := base
	page, listRV, restarted := 0, "", false
	tokens := newTokenSet()
	for {
		page++
		if page > r.opts.MaxListPages {
			return outcome{err: fmt.Errorf("%w: more than %d pages (Options.MaxListPages)", ErrListTooLarge, r.opts.MaxListPages)}
		}
		r.trace(ListRequested{Page: page, Options: opts})
		before := buf.n
		var known Known[T]
		if reuse {
			known = buf.knownFunc()
		}
		lctx, wire := withWireNote(ctx)
		lm, err := r.lw.List(lctx, opts, known, buf.add)
		if ctx.Err() != nil {
			return outcome{stopped: true}
		}
		if err != nil {
			if opts.Continue != "" && !restarted && Classify(err) == ClassExpired {
				// The continue token expired with the snapshot it
				// pinned. List everything again in one request, at
				// the same resourceVersion.
				r.trace(ListRestarted{AfterPage: page - 1, Cause: err})
				buf.abort()
				buf = r.newBuffer()
				opts, page, listRV, restarted = base, 0, "", true
				opts.Limit = 0
				tokens = newTokenSet()
				continue
			}
			return outcome{err: err}
		}
		r.trace(ListPageReceived{Page: page, Items: buf.n - before, ResourceVersion: lm.ResourceVersion, More: lm.Continue != "", Wire: wire.Wire, ContentEncoding: wire.ContentEncoding})
		if listRV == "" {
			// Every page reports the first page's resourceVersion.
			listRV = lm.ResourceVersion
		}
		if lm.Continue == "" {
			break
		}
		if first, seen := tokens.add(lm.Continue, page); seen {
			return outcome{err: fmt.Errorf("%w: page %d handed out the token of page %d", ErrContinueLoop, page, first)}
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

// tokenSet remembers the continue tokens one list was handed, by a 64-bit
// hash (a server's tokens may be long; a false repeat needs a collision
// among at most MaxListPages hashes under a random seed), so that a cycle
// of any period is seen when it first comes round.
type tokenSet struct {
	seed maphash.Seed
	page map[uint64]int
}

// newTokenSet returns an empty set with a fresh seed.
func newTokenSet() tokenSet { return tokenSet{seed: maphash.MakeSeed(), page: map[uint64]int{}} }

// add records that page handed out token, and reports the page that
// first did if it was seen before.
func (s tokenSet) add(token string, page int) (first int, seen bool) {
	h := maphash.String(s.seed, token)
	if first, seen = s.page[h]; seen {
		return first, true
	}
	s.page[h] = page
	return 0, false
}
