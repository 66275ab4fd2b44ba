package reflector

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/watch"
)

func TestAppliedReceivesEventsInsteadOfTrace(t *testing.T) {
	lw := newScriptLW()
	var (
		mu      sync.Mutex
		applied []EventApplied
		traced  []TraceEvent
	)
	got := make(chan struct{}, 10)
	r, err := NewReflector[*Obj](lw, newMapStore(t), Options{
		DisableStreamingList: true,
		Trace: func(e TraceEvent) {
			mu.Lock()
			defer mu.Unlock()
			traced = append(traced, e)
		},
		Applied: func(e EventApplied) {
			mu.Lock()
			applied = append(applied, e)
			mu.Unlock()
			got <- struct{}{}
		},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	recv(t, lw.lists).answer("10", "", obj("a", "1"))
	w := recv(t, lw.watches).open()
	w.modify(obj("a", "11"))
	w.add(obj("b", "12"))
	recv(t, got)
	recv(t, got)

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []EventApplied{
		{Type: watch.Modified, Key: "ns/a", ResourceVersion: "11"},
		{Type: watch.Added, Key: "ns/b", ResourceVersion: "12"},
	}, applied)
	var kinds []string
	for _, e := range traced {
		if _, ok := e.(EventApplied); ok {
			t.Errorf("Trace received %v although Applied is set", e)
		}
		kinds = append(kinds, e.String())
	}
	assert.Contains(t, kinds, "REPLACE 1 objects rv=10", "Trace still receives everything else")
}
