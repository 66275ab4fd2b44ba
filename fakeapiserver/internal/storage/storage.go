package storage

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/pmap"
	"github.com/kubecache/kubecache/watch"
)

// ErrCompacted reports a read or watch at a resourceVersion older than the
// compaction point.
var ErrCompacted = errors.New("resource version compacted")

// ErrServerClosing reports a watch registered after the server began to
// close.
var ErrServerClosing = errors.New("server closing")

// ErrResourceGone reports that the resource was removed (its
// CustomResourceDefinition deleted) while the request was served.
var ErrResourceGone = errors.New("resource removed")

// ErrChanged reports that the object changed between the read a write was
// computed from and the commit; the caller decides whether that is a
// Conflict or a reason to try again.
var ErrChanged = errors.New("object changed since it was read")

// table is the storage of one resource (shared by all its versions).
type table struct {
	cur pmap.Map[*Object]
	// versions holds the map after each change with rv > the compaction
	// point, preceded by one base version: the state at the compaction
	// point. versions[i].rv increases.
	versions []tableVersion
}

type tableVersion struct {
	rv int64
	m  pmap.Map[*Object]
}

// Change is one committed write, as watches see it.
type Change struct {
	RV    int64
	table string
	Typ   watch.EventType
	// Obj is the new state; for Deleted, the last state carrying the
	// delete's resourceVersion.
	Obj *Object
	// Prev is the state before the change (nil for Added).
	Prev *Object
	at   time.Time
	enc  encodings
}

// Store is the fake server's storage; see the package documentation. It is
// safe for concurrent use.
type Store struct {
	// now stamps each change (the server's clock).
	now          func() time.Time
	historyLimit int
	// historyBytes bounds logBytes, the bytes of the objects of the
	// changes in log (limits.go); negative: no bound.
	historyBytes int64
	logBytes     int64

	// mu guards every field below. Writes hold it only to check the
	// precondition, encode the new resourceVersion and publish.
	mu        sync.Mutex
	rv        int64
	compacted int64
	tables    map[string]*table
	// log holds the changes with rv > compacted, in order.
	log      []*Change
	watchers map[string]map[*Watcher]struct{}
	// tick is closed and replaced on every commit, waking anyone waiting
	// for the resourceVersion to advance.
	tick chan struct{}
	// wchanged is closed and replaced whenever a watcher registers or
	// leaves (WaitForWatchers).
	wchanged chan struct{}
	// dropped marks the tables of deleted CRDs until they are recreated:
	// a watch that looked the resource up just before is refused.
	dropped map[string]bool
	// watchFloor is, per table whose storage was reset, the oldest
	// resourceVersion a watch may start from (ResetWatches).
	watchFloor map[string]int64
	// closed makes every later watch registration fail.
	closed bool
}

// New returns an empty store. now stamps each change; historyLimit bounds
// how many changes are kept for watches to resume from (negative: none).
func New(now func() time.Time, historyLimit int) *Store {
	return &Store{
		now:          now,
		historyLimit: historyLimit,
		historyBytes: DefaultHistoryBytes,
		tables:       map[string]*table{},
		watchers:     map[string]map[*Watcher]struct{}{},
		tick:         make(chan struct{}),
		wchanged:     make(chan struct{}),
		dropped:      map[string]bool{},
		watchFloor:   map[string]int64{},
	}
}

func (s *Store) tableLocked(name string) *table {
	t := s.tables[name]
	if t == nil {
		delete(s.dropped, name)
		t = &table{versions: []tableVersion{{rv: 0}}}
		s.tables[name] = t
	}
	return t
}

// Current returns the resource's objects now and the global
// resourceVersion they were read at.
func (s *Store) Current(table string) (pmap.Map[*Object], int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tableLocked(table).cur, s.rv
}

// ResourceVersion returns the global resourceVersion.
func (s *Store) ResourceVersion() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}

// Get returns the current object under key, or nil.
func (s *Store) Get(table, key string) *Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, _ := s.tableLocked(table).cur.Get(key)
	return o
}

// At returns the resource's objects as they were at rv, which must not be
// newer than the store. A compacted rv is errCompacted.
func (s *Store) At(table string, rv int64) (pmap.Map[*Object], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.atLocked(table, rv)
}

func (s *Store) atLocked(table string, rv int64) (pmap.Map[*Object], error) {
	if rv < s.compacted {
		return pmap.Map[*Object]{}, ErrCompacted
	}
	t := s.tableLocked(table)
	vs := t.versions
	// The last version with vs[i].rv <= rv.
	i := sort.Search(len(vs), func(i int) bool { return vs[i].rv > rv }) - 1
	if i < 0 {
		return pmap.Map[*Object]{}, nil
	}
	return vs[i].m, nil
}

// Commit publishes one change to key in table. It fails with errChanged
// unless the current object under key is still expect (nil: absent).
// build receives the new resourceVersion and returns the new state, or, for
// a delete (typ Deleted), the final state to report. commit returns what
// build returned.
func (s *Store) Commit(table, key string, typ watch.EventType, expect *Object, build func(rv int64) (*Object, error)) (*Object, error) {
	s.mu.Lock()
	t := s.tableLocked(table)
	prev, _ := t.cur.Get(key)
	if prev != expect {
		s.mu.Unlock()
		return nil, ErrChanged
	}
	rv := s.rv + 1
	obj, err := build(rv)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if typ != watch.Deleted && obj != nil && len(obj.Body) > MaxObjectBytes {
		s.mu.Unlock()
		return nil, ErrTooLarge()
	}
	if typ == watch.Deleted {
		t.cur = t.cur.Delete(key)
	} else {
		t.cur = t.cur.Set(key, obj)
	}
	s.rv = rv
	t.versions = append(t.versions, tableVersion{rv: rv, m: t.cur})
	c := &Change{RV: rv, table: table, Typ: typ, Obj: obj, Prev: prev, at: s.now()}
	s.log = append(s.log, c)
	s.logBytes += changeBytes(c)
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
func (s *Store) dispatchLocked(c *Change) []*Watcher {
	var killed []*Watcher
	for w := range s.watchers[c.table] {
		if !w.wants(c) {
			continue
		}
		select {
		case w.Queue <- c:
		default:
			delete(s.watchers[c.table], w)
			w.Stop(stopTooSlow)
			killed = append(killed, w)
		}
	}
	return killed
}

// trimLocked enforces the history limit by compacting the oldest changes.
func (s *Store) trimLocked() {
	switch {
	case s.historyLimit < 0:
		s.compactLocked(s.rv)
	case len(s.log) > s.historyLimit:
		s.compactLocked(s.log[len(s.log)-s.historyLimit-1].RV)
	}
	s.trimBytesLocked()
}

// Compact forgets everything older than rv (at most the current
// resourceVersion) and returns the compaction point.
func (s *Store) Compact(rv int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked(min(rv, s.rv))
	return s.compacted
}

func (s *Store) compactLocked(rv int64) {
	if rv <= s.compacted {
		return
	}
	s.compacted = rv
	n := sort.Search(len(s.log), func(i int) bool { return s.log[i].RV > rv })
	for _, c := range s.log[:n] {
		s.logBytes -= changeBytes(c)
	}
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

// CompactedRV returns the compaction point.
func (s *Store) CompactedRV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compacted
}

// WaitFor blocks until the store's resourceVersion reaches rv, timeout
// fires or ctx ends; it reports whether rv was reached.
func (s *Store) WaitFor(ctx context.Context, rv int64, timeout <-chan time.Time) bool {
	for {
		s.mu.Lock()
		cur, tick := s.rv, s.tick
		s.mu.Unlock()
		if cur >= rv {
			return true
		}
		select {
		case <-tick:
		case <-timeout:
			return s.ResourceVersion() >= rv
		case <-ctx.Done():
			return false
		}
	}
}

// HistoryLen returns how many changes the log holds and how many
// versions of table are kept (what the history limit bounds).
func (s *Store) HistoryLen(table string) (changes, versions int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tables[table]; t != nil {
		versions = len(t.versions)
	}
	return len(s.log), versions
}

// DropTable removes a resource's storage (its CustomResourceDefinition was
// deleted) and ends its watches.
func (s *Store) DropTable(table string) {
	s.mu.Lock()
	delete(s.tables, table)
	s.dropped[table] = true
	ws := s.watchers[table]
	delete(s.watchers, table)
	s.watchersChangedLocked()
	s.mu.Unlock()
	// Not interrupted: each watch's handler sends the deletions still
	// queued, then ends its response, as a real server's watchers get a
	// DELETED event for every object of a deleted CRD before it ends.
	for w := range ws {
		w.Stop(StopResourceGone)
	}
}
