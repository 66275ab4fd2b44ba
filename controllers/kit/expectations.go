package kit

import (
	"sync"
	"time"
)

// ExpectationsTimeout is how long unmet expectations hold a controller
// back before it acts anyway (an event may have been missed): the real
// controllers' five minutes, on the wall clock.
const ExpectationsTimeout = 5 * time.Minute

// Expectations count, per controller key, the creations and deletions a
// controller has asked for and its informer has not shown yet. While a
// key has some, its controller does not create or delete pods: its cache
// is behind its own writes, and acting on it would create or delete too
// many. It is safe for concurrent use.
type Expectations struct {
	// mu guards m.
	mu sync.Mutex
	m  map[string]*expectation
}

type expectation struct {
	adds int
	// dels holds the keys of the objects whose deletion is awaited: a
	// deletion is seen twice (the deletionTimestamp, then the delete) and
	// must count once.
	dels map[string]bool
	at   time.Time
}

// NewExpectations returns empty Expectations.
func NewExpectations() *Expectations { return &Expectations{m: map[string]*expectation{}} }

// Expect records that key's controller is about to create adds objects
// and delete the objects with keys dels, replacing what was expected
// before.
func (e *Expectations) Expect(key string, adds int, dels ...string) {
	x := &expectation{adds: adds, dels: map[string]bool{}, at: time.Now()}
	for _, d := range dels {
		x.dels[d] = true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.m[key] = x
}

// Created records that a creation was seen (or will never happen: the
// request failed).
func (e *Expectations) Created(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.m[key]; ok {
		x.adds--
	}
}

// Deleted records that the deletion of the object objKey was seen (or
// will never happen).
func (e *Expectations) Deleted(key, objKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.m[key]; ok {
		delete(x.dels, objKey)
	}
}

// Satisfied reports whether key's controller may act: nothing is
// expected, everything expected was seen, or the expectations are older
// than ExpectationsTimeout.
func (e *Expectations) Satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.m[key]
	return !ok || (x.adds <= 0 && len(x.dels) == 0) || time.Since(x.at) > ExpectationsTimeout
}

// Forget drops key's expectations (its object is gone).
func (e *Expectations) Forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, key)
}
