package await

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// Buffer collects what several goroutines write (a process's output) and
// lets a test wait until what it holds satisfies a condition. The zero
// Buffer is ready to use.
type Buffer struct {
	// mu guards buf and changed.
	mu  sync.Mutex
	buf bytes.Buffer
	// changed is closed and replaced at every write.
	changed chan struct{}
}

// Write appends p and wakes every waiter.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.changed != nil {
		close(b.changed)
	}
	b.changed = make(chan struct{})
	return n, err
}

// String returns what was written so far.
func (b *Buffer) String() string {
	s, _ := b.State()
	return s
}

// State returns what was written so far and a channel closed at the next
// write.
func (b *Buffer) State() (string, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.buf.String(), b.changed
}

// WaitFor waits until what the buffer holds satisfies cond, failing the
// test, with what was written, after d.
func (b *Buffer) WaitFor(t testing.TB, d time.Duration, what string, cond func(string) bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		s, changed := b.State()
		if cond(s) {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("waited %v for %s; output so far:\n%s", d, what, s)
		}
	}
}
