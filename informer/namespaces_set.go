package informer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// How a set of namespaces fills one informer. Each namespace (a member)
// has its own reflector writing into its own memberStore. Until the
// informer's first list is complete, a member's store keeps what its
// reflector writes to itself; once every member of the starting set has
// listed, the set "launches": one Replace of the informer's queue with
// every member's objects (so the queue's and the handlers' idea of the
// initial list is the usual one), and from then on each member's writes
// go straight to the queue, its relists as ReplaceNamespace (confined to
// its namespace). A member added after the launch writes to the queue
// from the start.
//
// Freshness is per member: when the queue is drained, each member's cache
// state reflects its reflector's resume point (read before the queue is
// checked, as for one reflector); the informer's StoreResourceVersion is
// the oldest of them.

// namespaceSet is the set of namespaces behind a MultiNamespaceInformer.
type namespaceSet[T meta.Object] struct {
	inf    *Informer[T]
	client rest.Getter
	src    reflector.Source
	// selector is the namespaces' label selector; "" for a set changed
	// by hand. nsInf follows the namespaces it selects and nsReg is the
	// set's handler on it; both nil without a selector.
	selector string
	nsInf    *Informer[*meta.PartialObjectMetadata]
	nsReg    *Registration[*meta.PartialObjectMetadata]

	// opMu serializes add and remove, so that a namespace's objects are
	// forgotten before it can be added again.
	opMu sync.Mutex

	// mu guards the fields below. It is taken before a member store's mu
	// and the informer's mu, never after them.
	mu      sync.Mutex
	members map[string]*member[T]
	// start runs a member's reflector; nil while the set is not running.
	start func(*member[T])
	// ready is set once the starting set is known: at Run for a set by
	// hand, once the selected namespaces are listed for a selector.
	// launched is set once the informer's queue got its first Replace.
	ready, launched bool

	// views lists the members for the freshness code; guarded by the
	// informer's mu.
	views []*member[T]
}

// member is one namespace of the set.
type member[T meta.Object] struct {
	ns    string
	refl  *reflector.Reflector[T]
	store *memberStore[T]
	// cancel stops the reflector and done is closed once it has; nil
	// until the set runs it. Guarded by the set's mu.
	cancel context.CancelFunc
	done   chan struct{}

	// The fields below are guarded by the informer's mu. live is set once
	// the member's writes reach the queue; listRV is its last list's
	// resourceVersion; seen is its resume point read at a drain, fresh
	// the resourceVersion the cache reflects for it; waiters is closed
	// when fresh moves.
	live                bool
	listRV, seen, fresh string
	waiters             chan struct{}
	// written is the resourceVersion, as a number, of the member's newest
	// change written to the queue (see freshness.go); atomic.
	written atomic.Uint64
}

// newNamespaceSet returns the empty set of inf, with the informer that
// follows selector when there is one.
func newNamespaceSet[T meta.Object](inf *Informer[T], client rest.Getter, src reflector.Source, sel string) (*namespaceSet[T], error) {
	s := &namespaceSet[T]{inf: inf, client: client, src: src, selector: sel, members: map[string]*member[T]{}}
	if sel == "" {
		return s, nil
	}
	lw, err := reflector.NewListWatch[*meta.PartialObjectMetadata](client, reflector.Source{Resource: "namespaces", LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	ropts := inf.opts.Reflector
	ropts.Name = "namespaces " + sel
	ropts.Trace, ropts.Applied = nil, nil
	s.nsInf, err = New(lw, Options[*meta.PartialObjectMetadata]{
		Name: ropts.Name, Reflector: ropts, Clock: inf.opts.Clock, OnError: inf.opts.OnError,
	})
	if err != nil {
		return nil, err
	}
	s.nsReg, err = s.nsInf.AddEventHandler(HandlerFuncs[*meta.PartialObjectMetadata]{
		AddFunc: func(ns *meta.PartialObjectMetadata, _ bool) {
			if err := s.add(ns.Name); err != nil {
				inf.report(err)
			}
		},
		DeleteFunc: func(ns *meta.PartialObjectMetadata, _ bool) {
			if err := s.remove(context.Background(), ns.Name); err != nil {
				inf.report(err)
			}
		},
	}, HandlerOptions{Name: "namespace set"})
	return s, err
}

// manual checks that the set may be changed by hand, with ns.
func (s *namespaceSet[T]) manual(ns string) error {
	switch {
	case s.selector != "":
		return fmt.Errorf("%s: %w: the namespaces follow the selector %q", s.inf.name, ErrInvalidOptions, s.selector)
	case ns == "":
		return fmt.Errorf("%s: %w: namespace \"\"", s.inf.name, ErrInvalidOptions)
	}
	return nil
}

// add makes ns a member, and runs its reflector if the set runs.
func (s *namespaceSet[T]) add(ns string) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.members[ns]; ok {
		return nil
	}
	src := s.src
	src.Namespace = ns
	lw, err := reflector.NewListWatch[T](s.client, src)
	if err != nil {
		return err
	}
	m := &member[T]{ns: ns}
	m.store = &memberStore[T]{set: s, m: m, buf: map[string]T{}, direct: s.launched}
	if m.refl, err = s.inf.newReflector(lw, m.store, ns+"/"+s.inf.name); err != nil {
		return err
	}
	s.members[ns] = m
	s.inf.mu.Lock()
	m.live = s.launched
	s.views = append(s.views, m)
	s.inf.mu.Unlock()
	if s.start != nil {
		s.start(m)
	}
	return nil
}

// remove stops ns's reflector and forgets its objects.
func (s *namespaceSet[T]) remove(ctx context.Context, ns string) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	m, ok := s.members[ns]
	delete(s.members, ns)
	s.mu.Unlock()
	if !ok {
		return nil
	}
	// From here on the member's writes are dropped, so nothing it
	// writes while it stops comes back after it is forgotten.
	err := m.store.forget()
	s.inf.mu.Lock()
	s.views = slices.DeleteFunc(s.views, func(v *member[T]) bool { return v == m })
	s.inf.mu.Unlock()
	s.mu.Lock()
	cancel, done := m.cancel, m.done
	s.mu.Unlock()
	s.maybeLaunch() // a member that had not listed no longer holds the first list back
	if cancel == nil {
		return err
	}
	cancel()
	select {
	case <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s: remove namespace %s: %w", s.inf.name, ns, ctx.Err())
	}
}

// run runs every member's reflector (and the namespace informer) until
// ctx ends, and waits for them.
func (s *namespaceSet[T]) run(ctx context.Context) {
	var wg sync.WaitGroup
	s.mu.Lock()
	s.start = func(m *member[T]) {
		mctx, cancel := context.WithCancel(ctx)
		m.cancel, m.done = cancel, make(chan struct{})
		wg.Go(func() {
			defer close(m.done)
			defer cancel()
			_ = m.refl.Run(mctx)
		})
	}
	for _, m := range s.members {
		s.start(m)
	}
	s.ready = s.nsInf == nil
	s.mu.Unlock()
	if s.nsInf != nil {
		wg.Go(func() { _ = s.nsInf.Run(ctx) })
		wg.Go(func() {
			select {
			case <-s.nsReg.Synced():
				s.mu.Lock()
				s.ready = true
				s.mu.Unlock()
				s.maybeLaunch()
			case <-ctx.Done():
			}
		})
	} else {
		s.maybeLaunch()
	}
	<-ctx.Done()
	s.mu.Lock()
	s.start = nil
	s.mu.Unlock()
	wg.Wait()
}

// maybeLaunch makes the informer's first Replace, with every member's
// objects, once the starting set is known and every member has listed.
func (s *namespaceSet[T]) maybeLaunch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.launched || !s.ready {
		return
	}
	ms := make([]*member[T], 0, len(s.members))
	for _, m := range s.members {
		ms = append(ms, m)
	}
	for _, m := range ms {
		m.store.mu.Lock()
		defer m.store.mu.Unlock()
	}
	var items []T
	rv := ""
	for _, m := range ms {
		if !m.store.listed {
			return
		}
		for _, obj := range m.store.buf {
			items = append(items, obj)
		}
		if rv == "" || olderRV(rv, m.store.listRV) {
			rv = m.store.listRV
		}
	}
	s.launched = true
	s.inf.mu.Lock()
	// Nothing is queued yet and no member's progress reaches the informer
	// before it is live, so no drain comes between this and the Replace.
	for _, m := range ms {
		m.store.direct, m.store.buf = true, nil
		m.live, m.listRV = true, m.store.listRV
	}
	s.inf.mu.Unlock()
	if err := s.inf.store.Replace(items, rv); err != nil {
		s.inf.report(fmt.Errorf("%s: first list: %w", s.inf.name, err))
	}
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	// The queue may have been drained before Replace returned.
	s.inf.catchUpLocked(true)
}

// relisted queues a live member's relist and records its resourceVersion,
// under the informer's mu, so that no drain sees one without the other.
func (s *namespaceSet[T]) relisted(m *member[T], items []T, rv string) error {
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	err := s.inf.store.replaceNamespace(m.ns, items, rv)
	if err == nil {
		m.listRV = rv
	}
	return err
}

// readResumePointsLocked reads every live member's resume point, at a
// moment when the queue was empty. The caller holds the informer's mu.
func (s *namespaceSet[T]) readResumePointsLocked() {
	for _, m := range s.views {
		if !m.live {
			continue
		}
		m.seen = m.refl.LastSyncResourceVersion()
		if m.seen == "" || olderRV(m.seen, m.listRV) {
			m.seen = m.listRV
		}
		m.seen = newerWritten(m.seen, m.written.Load())
	}
}

// caughtUpLocked records, once the queue was still empty after
// readResumePointsLocked, that the cache reflects each live member's
// resume point, and returns the oldest member's: the resourceVersion the
// cache reflects as a whole ("" while no member has one). The caller
// holds the informer's mu.
func (s *namespaceSet[T]) caughtUpLocked() string {
	oldest := ""
	for _, m := range s.views {
		if m.live && m.seen != "" && (m.fresh == "" || olderRV(m.fresh, m.seen)) {
			m.fresh = m.seen
			if m.waiters != nil {
				close(m.waiters)
				m.waiters = nil
			}
		}
		if m.fresh != "" && (oldest == "" || olderRV(m.fresh, oldest)) {
			oldest = m.fresh
		}
	}
	return oldest
}

// waitFresh waits until the cache reflects rv in ns.
func (s *namespaceSet[T]) waitFresh(ctx context.Context, ns, rv string) error {
	want, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: wait for freshness: resourceVersion %q is not an unsigned integer", s.inf.name, rv)
	}
	s.inf.fresh.waiting.Add(1)
	defer s.inf.fresh.waiting.Add(-1)
	for {
		s.inf.mu.Lock()
		s.inf.catchUpLocked(true)
		i := slices.IndexFunc(s.views, func(m *member[T]) bool { return m.ns == ns })
		if i < 0 {
			s.inf.mu.Unlock()
			return fmt.Errorf("%s: wait for freshness: namespace %q is not in the set", s.inf.name, ns)
		}
		m := s.views[i]
		have := m.fresh
		if n, err := strconv.ParseUint(have, 10, 64); err == nil && n >= want {
			s.inf.mu.Unlock()
			return nil
		}
		if m.waiters == nil {
			m.waiters = make(chan struct{})
		}
		ch := m.waiters
		s.inf.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return &StaleCacheError{Informer: s.inf.name + " in " + ns, Want: rv, Have: have, Err: ctx.Err()}
		}
	}
}

// sorted returns the members sorted by namespace.
func (s *namespaceSet[T]) sorted() []*member[T] {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := make([]*member[T], 0, len(s.members))
	for _, m := range s.members {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b *member[T]) int { return cmp.Compare(a.ns, b.ns) })
	return ms
}

// statuses reports every member.
func (s *namespaceSet[T]) statuses() []NamespaceStatus {
	ms := s.sorted()
	out := make([]NamespaceStatus, len(ms))
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	for i, m := range ms {
		out[i] = NamespaceStatus{Namespace: m.ns, Synced: m.fresh != "", ResourceVersion: m.fresh, Gone: m.refl.Gone()}
	}
	return out
}

// lastSyncResourceVersion is the oldest member's resume point.
func (s *namespaceSet[T]) lastSyncResourceVersion() string {
	oldest := ""
	for _, m := range s.sorted() {
		rv := m.refl.LastSyncResourceVersion()
		if rv != "" && (oldest == "" || olderRV(rv, oldest)) {
			oldest = rv
		}
	}
	return oldest
}

// lastHeard is the earliest time a member last heard from the server:
// every namespace has been heard from since.
func (s *namespaceSet[T]) lastHeard() time.Time {
	var earliest time.Time
	for _, m := range s.sorted() {
		if t := m.refl.LastHeard(); !t.IsZero() && (earliest.IsZero() || t.Before(earliest)) {
			earliest = t
		}
	}
	return earliest
}

// gone returns the first member's GoneError, if any is gone.
func (s *namespaceSet[T]) gone() *reflector.GoneError {
	for _, m := range s.sorted() {
		if g := m.refl.Gone(); g != nil {
			return g
		}
	}
	return nil
}
