package informer

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kubecache/kubecache/meta"
)

// Model is a handler for tests: it applies the notifications it receives
// to a map of key → resourceVersion and checks, as it goes, that they are
// consistent: no add for an object it holds, no update or delete for one
// it does not, no resourceVersion going backwards. It is exported for the
// package's external tests too.
type Model[T meta.Object] struct {
	// mu guards the fields below.
	mu       sync.Mutex
	objs     map[string]string
	problems []string
	events   int
	// changed is closed and replaced on every notification.
	changed chan struct{}
}

// NewModel returns a Model that holds nothing yet.
func NewModel[T meta.Object]() *Model[T] {
	return &Model[T]{objs: map[string]string{}, changed: make(chan struct{})}
}

func (m *Model[T]) problem(format string, args ...any) {
	m.problems = append(m.problems, fmt.Sprintf(format, args...))
}

// notifiedLocked counts a notification and wakes waiters.
func (m *Model[T]) notifiedLocked() {
	m.events++
	close(m.changed)
	m.changed = make(chan struct{})
}

// OnAdd records obj, which it must not hold yet.
func (m *Model[T]) OnAdd(obj T, _ bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := meta.Key(obj)
	rv := obj.GetObjectMeta().ResourceVersion
	if held, ok := m.objs[k]; ok {
		m.problem("add %s %s: already held at %s (a duplicate)", k, rv, held)
	}
	m.objs[k] = rv
	m.notifiedLocked()
}

// OnUpdate records newObj; oldObj must be the state it holds.
func (m *Model[T]) OnUpdate(oldObj, newObj T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := meta.Key(newObj)
	oldRV, newRV := oldObj.GetObjectMeta().ResourceVersion, newObj.GetObjectMeta().ResourceVersion
	rv, ok := m.objs[k]
	switch {
	case !ok:
		m.problem("update %s: not held (a gap)", k)
	case rv != oldRV:
		m.problem("update %s: old rv %s, but held %s", k, oldRV, rv)
	case rvLess(newRV, rv):
		m.problem("update %s: rv went back from %s to %s", k, rv, newRV)
	}
	m.objs[k] = newRV
	m.notifiedLocked()
}

// OnDelete forgets obj, which it must hold.
func (m *Model[T]) OnDelete(obj T, _ bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := meta.Key(obj)
	if _, ok := m.objs[k]; !ok {
		m.problem("delete %s: not held", k)
	}
	delete(m.objs, k)
	m.notifiedLocked()
}

// State returns a copy of what the model holds and the inconsistencies
// it found.
func (m *Model[T]) State() (map[string]string, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.objs), slices.Clone(m.problems)
}

// WaitFor waits up to 20 seconds until cond holds for the model's objects
// and notification count.
func (m *Model[T]) WaitFor(t *testing.T, what string, cond func(objs map[string]string, events int) bool) {
	t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		ok := cond(m.objs, m.events)
		changed := m.changed
		m.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// rvLess compares two resourceVersions as the numbers the fake server
// and the tests give them.
func rvLess(a, b string) bool {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	return x < y
}
