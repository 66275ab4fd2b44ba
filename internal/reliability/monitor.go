package reliability

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Monitor watches the resourceVersions a client shows for each object — in
// its store, in its handlers' notifications — and records every one that
// goes backwards: the property that must hold through every fault. It also
// counts what it observed and wakes waiters on every observation, so a test
// waits for a client to converge without polling.
//
// A Monitor is safe for concurrent use; one Monitor may watch several
// clients if their keys are distinct (prefix them).
type Monitor struct {
	// mu guards every field below.
	mu sync.Mutex
	// last is the newest resourceVersion seen per key, deletions included,
	// so an object brought back by an older list is caught too.
	last       map[string]string
	violations []string
	observed   int
	// changed is closed and replaced on every observation.
	changed chan struct{}
}

// NewMonitor returns an empty Monitor.
func NewMonitor() *Monitor {
	return &Monitor{last: map[string]string{}, changed: make(chan struct{})}
}

// Observe records that source showed key at resourceVersion rv. It records a
// violation if rv is older than a version already seen for key (versions are
// compared as integers, as every etcd-backed server's are; versions that are
// not integers are not compared).
func (m *Monitor) Observe(source, key, rv string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.observed++
	if prev, ok := m.last[key]; ok {
		switch c, ok := CompareResourceVersions(rv, prev); {
		case ok && c < 0:
			m.violations = append(m.violations, fmt.Sprintf("%s: %s went back from rv=%s to rv=%s", source, key, prev, rv))
			m.notifyLocked()
			return
		case ok && c == 0:
			m.notifyLocked()
			return
		}
	}
	m.last[key] = rv
	m.notifyLocked()
}

// Violation records a broken rule other than a version going backwards (an
// update whose new state is older than its old state, say).
func (m *Monitor) Violation(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.violations = append(m.violations, fmt.Sprintf(format, args...))
	m.notifyLocked()
}

// Touch wakes waiters without recording anything (a client synced, a
// reflector changed state).
func (m *Monitor) Touch() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notifyLocked()
}

func (m *Monitor) notifyLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// Changed returns a channel closed at the next observation. Take it before
// checking a condition, then wait on it: no observation is missed.
func (m *Monitor) Changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

// Violations returns the violations recorded so far, oldest first.
func (m *Monitor) Violations() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.violations)
}

// Observed returns how many observations were made.
func (m *Monitor) Observed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.observed
}

// CompareResourceVersions compares two resourceVersions as integers: -1 if a
// is older than b, 0 if equal, +1 if newer. ok is false when either is not
// a non-negative integer (resourceVersions are opaque in general; every
// etcd-backed server's are integers).
func CompareResourceVersions(a, b string) (c int, ok bool) {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

// Snapshot is what a client or a server holds of one resource: each
// object's "namespace/name" key mapped to its resourceVersion. Two equal
// snapshots hold the same objects at the same versions.
type Snapshot map[string]string

// Equal reports whether s and o hold the same keys at the same versions.
func (s Snapshot) Equal(o Snapshot) bool { return maps.Equal(s, o) }

// Diff describes how s differs from want, one key per line ("" if equal):
// "+key@rv" held but not wanted, "-key@rv" wanted but missing, "~key@rv
// (want rv)" held at another version.
func (s Snapshot) Diff(want Snapshot) string {
	var lines []string
	for k, rv := range s {
		w, ok := want[k]
		switch {
		case !ok:
			lines = append(lines, "+"+k+"@"+rv)
		case w != rv:
			lines = append(lines, "~"+k+"@"+rv+" (want "+w+")")
		}
	}
	for k, rv := range want {
		if _, ok := s[k]; !ok {
			lines = append(lines, "-"+k+"@"+rv)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
