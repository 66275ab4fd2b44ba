package fakeapiserver

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/pmap"
	"github.com/kubecache/kubecache/watch"
)

// The store is the fake server's etcd: one global, strictly increasing
// resourceVersion (etcd's revision), one persistent sorted map of objects
// per resource, the map as it was after each recent change (so a read at
// an older resourceVersion sees exactly that state), and the log of recent
// changes that watches resume from. Everything older than the compaction
// point is forgotten; asking for it is a 410.

// errCompacted reports a read or watch at a resourceVersion older than the
// compaction point.
var errCompacted = errors.New("resource version compacted")

// errChanged reports that the object changed between the read a write was
// computed from and the commit; the caller decides whether that is a
// Conflict or a reason to try again.
var errChanged = errors.New("object changed since it was read")

// table is the storage of one resource (shared by all its versions).
type table struct {
	cur pmap.Map[*stored]
	// versions holds the map after each change with rv > the compaction
	// point, preceded by one base version: the state at the compaction
	// point. versions[i].rv increases.
	versions []tableVersion
}

type tableVersion struct {
	rv int64
	m  pmap.Map[*stored]
}

// change is one committed write, as watches see it.
type change struct {
	rv    int64
	table string
	typ   watch.EventType
	// obj is the new state; for Deleted, the last state carrying the
	// delete's resourceVersion.
	obj *stored
	// prev is the state before the change (nil for Added).
	prev *stored
	at   time.Time
	enc  encodings
}

type store struct {
	clock        Clock
	historyLimit int

	// mu guards every field below. Writes hold it only to check the
	// precondition, encode the new resourceVersion and publish.
	mu        sync.Mutex
	rv        int64
	compacted int64
	tables    map[string]*table
	// log holds the changes with rv > compacted, in order.
	log      []*change
	watchers map[string]map[*watcher]struct{}
	// tick is closed and replaced on every commit, waking anyone waiting
	// for the resourceVersion to advance.
	tick chan struct{}
	// wchanged is closed and replaced whenever a watcher registers or
	// leaves (WaitForWatchers).
	wchanged chan struct{}
	// dropped marks the tables of deleted CRDs until they are recreated:
	// a watch that looked the resource up just before is refused.
	dropped map[string]bool
	// closed makes every later watch registration fail.
	closed bool
}

func newStore(clock Clock, historyLimit int) *store {
	return &store{
		clock:        clock,
		historyLimit: historyLimit,
		tables:       map[string]*table{},
		watchers:     map[string]map[*watcher]struct{}{},
		tick:         make(chan struct{}),
		wchanged:     make(chan struct{}),
		dropped:      map[string]bool{},
	}
}

func (s *store) tableLocked(name string) *table {
	t := s.tables[name]
	if t == nil {
		delete(s.dropped, name)
		t = &table{versions: []tableVersion{{rv: 0}}}
		s.tables[name] = t
	}
	return t
}

// current returns the resource's objects now and the global
// resourceVersion they were read at.
func (s *store) current(table string) (pmap.Map[*stored], int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tableLocked(table).cur, s.rv
}

// resourceVersion returns the global resourceVersion.
func (s *store) resourceVersion() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}

// get returns the current object under key, or nil.
func (s *store) get(table, key string) *stored {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, _ := s.tableLocked(table).cur.Get(key)
	return o
}

// at returns the resource's objects as they were at rv, which must not be
// newer than the store. A compacted rv is errCompacted.
func (s *store) at(table string, rv int64) (pmap.Map[*stored], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.atLocked(table, rv)
}

func (s *store) atLocked(table string, rv int64) (pmap.Map[*stored], error) {
	if rv < s.compacted {
		return pmap.Map[*stored]{}, errCompacted
	}
	t := s.tableLocked(table)
	vs := t.versions
	// The last version with vs[i].rv <= rv.
	i := sort.Search(len(vs), func(i int) bool { return vs[i].rv > rv }) - 1
	if i < 0 {
		return pmap.Map[*stored]{}, nil
	}
	return vs[i].m, nil
}

// commit publishes one change to key in table. It fails with errChanged
// unless the current object under key is still expect (nil: absent).
// build receives the new resourceVersion and returns the new state, or, for
// a delete (typ Deleted), the final state to report. commit returns what
// build returned.
func (s *store) commit(table, key string, typ watch.EventType, expect *stored, build func(rv int64) (*stored, error)) (*stored, error) {
	s.mu.Lock()
	t := s.tableLocked(table)
	prev, _ := t.cur.Get(key)
	if prev != expect {
		s.mu.Unlock()
		return nil, errChanged
	}
	rv := s.rv + 1
	obj, err := build(rv)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if typ == watch.Deleted {
		t.cur = t.cur.Delete(key)
	} else {
		t.cur = t.cur.Set(key, obj)
	}
	s.rv = rv
	t.versions = append(t.versions, tableVersion{rv: rv, m: t.cur})
	c := &change{rv: rv, table: table, typ: typ, obj: obj, prev: prev, at: s.clock.Now()}
	s.log = append(s.log, c)
	killed := s.dispatchLocked(c)
	s.trimLocked()
	close(s.tick)
	s.tick = make(chan struct{})
	s.mu.Unlock()
	for _, w := range killed {
		w.interrupt()
	}
	return obj, nil
}

// dispatchLocked hands c to every watcher of its table without blocking.
// A watcher whose queue is full is dropped; the caller interrupts it after
// releasing the lock.
func (s *store) dispatchLocked(c *change) []*watcher {
	var killed []*watcher
	for w := range s.watchers[c.table] {
		if !w.wants(c) {
			continue
		}
		select {
		case w.queue <- c:
		default:
			delete(s.watchers[c.table], w)
			w.stop(stopTooSlow)
			killed = append(killed, w)
		}
	}
	return killed
}

// trimLocked enforces the history limit by compacting the oldest changes.
func (s *store) trimLocked() {
	switch {
	case s.historyLimit < 0:
		s.compactLocked(s.rv)
	case len(s.log) > s.historyLimit:
		s.compactLocked(s.log[len(s.log)-s.historyLimit-1].rv)
	}
}

// compact forgets everything older than rv (at most the current
// resourceVersion) and returns the compaction point.
func (s *store) compact(rv int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked(min(rv, s.rv))
	return s.compacted
}

func (s *store) compactLocked(rv int64) {
	if rv <= s.compacted {
		return
	}
	s.compacted = rv
	n := sort.Search(len(s.log), func(i int) bool { return s.log[i].rv > rv })
	clear(s.log[:n])
	s.log = s.log[n:]
	for _, t := range s.tables {
		vs := t.versions
		i := sort.Search(len(vs), func(i int) bool { return vs[i].rv > rv }) - 1
		if i > 0 {
			clear(vs[:i])
			t.versions = vs[i:]
		}
	}
}

// compactedRV returns the compaction point.
func (s *store) compactedRV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compacted
}

// waitFor blocks until the store's resourceVersion reaches rv, the timer
// fires or ctx ends; it reports whether rv was reached.
func (s *store) waitFor(ctx context.Context, rv int64, timeout Timer) bool {
	for {
		s.mu.Lock()
		cur, tick := s.rv, s.tick
		s.mu.Unlock()
		if cur >= rv {
			return true
		}
		select {
		case <-tick:
		case <-timeout.C():
			return s.resourceVersion() >= rv
		case <-ctx.Done():
			return false
		}
	}
}

// dropTable removes a resource's storage (its CustomResourceDefinition was
// deleted) and ends its watches.
func (s *store) dropTable(table string) {
	s.mu.Lock()
	delete(s.tables, table)
	s.dropped[table] = true
	ws := s.watchers[table]
	delete(s.watchers, table)
	s.watchersChangedLocked()
	s.mu.Unlock()
	for w := range ws {
		w.stop(stopResourceGone)
		w.interrupt()
	}
}
