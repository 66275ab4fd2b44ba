package stack

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
)

// events records an informer's notifications as "add ns/name",
// "delete ns/name [unknown]" and lets a test wait on them.
type events struct {
	// mu guards lines and wake.
	mu    sync.Mutex
	lines []string
	wake  chan struct{}
}

func newEvents() *events { return &events{wake: make(chan struct{})} }

func (e *events) add(line string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines = append(e.lines, line)
	close(e.wake)
	e.wake = make(chan struct{})
}

// handler returns a Handler that records into e.
func handler[T meta.Object](e *events) informer.Handler[T] {
	return informer.HandlerFuncs[T]{
		AddFunc: func(obj T, _ bool) { e.add("add " + meta.Key(obj)) },
		DeleteFunc: func(obj T, unknown bool) {
			line := "delete " + meta.Key(obj)
			if unknown {
				line += " unknown"
			}
			e.add(line)
		},
	}
}

// await waits up to 90 seconds until the lines contain every one of want.
func (e *events) await(t *testing.T, want ...string) {
	t.Helper()
	timeout := time.After(90 * time.Second)
	for {
		e.mu.Lock()
		lines, wake := slices.Clone(e.lines), e.wake
		e.mu.Unlock()
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return slices.Contains(lines, w) })
		if len(missing) == 0 {
			return
		}
		select {
		case <-wake:
		case <-timeout:
			t.Fatalf("still waiting for %s after 90s; events:\n%s", strings.Join(missing, ", "), strings.Join(lines, "\n"))
		}
	}
}

// awaitCond polls cond every 50ms for up to 90 seconds: for server-side
// state no watch tells the test about (a CRD's finalizer, its resource
// being served again).
func awaitCond(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		ok, err := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after 90s (last error: %v)", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
