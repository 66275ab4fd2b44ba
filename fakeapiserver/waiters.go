package fakeapiserver

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver/internal/faults"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// WaitForWatchers blocks until at least n watches on resource are open
// (resource is a plural name, optionally qualified: "pods",
// "deployments.apps"; "" counts every watch) or ctx ends. Tests use it
// instead of sleeping after starting a watch.
func (s *Server) WaitForWatchers(ctx context.Context, resource string, n int) error {
	m := request.Match{Resource: resource}
	for {
		have, changed := s.store.CountWatchers(func(w *storage.Watcher) bool {
			return m.MatchesResource(w.Info.Group, w.Info.Resource)
		})
		if have >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("fakeapiserver: waiting for %d watchers on %q (have %d): %w", n, resource, have, ctx.Err())
		}
	}
}

// Watchers returns how many watches on resource are open.
func (s *Server) Watchers(resource string) int {
	m := request.Match{Resource: resource}
	n, _ := s.store.CountWatchers(func(w *storage.Watcher) bool {
		return m.MatchesResource(w.Info.Group, w.Info.Resource)
	})
	return n
}

// AwaitWatchers blocks until the number of open watches m selects (its
// Resource and Namespace; Verb is ignored) satisfies ok, or ctx ends.
// Tests use it to see a watch go away ("none left in namespace b") as
// WaitForWatchers sees watches come.
func (s *Server) AwaitWatchers(ctx context.Context, m Match, ok func(n int) bool) error {
	for {
		have, changed := s.store.CountWatchers(func(w *storage.Watcher) bool { return faults.Selects(m, w) })
		if ok(have) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("fakeapiserver: waiting on the watches of %+v (have %d): %w", m, have, ctx.Err())
		}
	}
}
