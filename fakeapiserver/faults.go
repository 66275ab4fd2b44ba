package fakeapiserver

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/faults"
	"github.com/kubecache/kubecache/fakeapiserver/internal/pmap"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// Fault injection: make the server misbehave on purpose, the ways real
// servers and networks do. Every injected fault is named in the request
// log (the "fault" attribute). The fault model lives in internal/faults;
// these methods are its Go API, and the same controls are served over HTTP
// under /kubecache-admin/ when Options.Admin is set (admin.go).

// Match selects requests (or open watches) by verb, resource and
// namespace; an empty field matches anything. Resource is the plural name,
// optionally qualified by group: "pods", "deployments.apps".
type Match = request.Match

// FailRule makes the next Count requests that match answer with an error
// instead of being served.
type FailRule = faults.FailRule

// DelayRule holds the next Count matching requests for Delay (by the
// server's Clock) before serving them.
type DelayRule = faults.DelayRule

// CutMode says how CutWatches ends a watch.
type CutMode = faults.CutMode

// The ways CutWatches ends a watch.
const (
	// CutAbort drops the connection between two events (the client sees
	// an unexpected end of the stream).
	CutAbort = faults.CutAbort
	// CutMidFrame writes half an event, then drops the connection.
	CutMidFrame = faults.CutMidFrame
	// CutClean ends the response normally, as a watch timeout does.
	CutClean = faults.CutClean
)

// FailNext installs a rule; rules are tried in the order they were added.
func (s *Server) FailNext(rule FailRule) { s.faults.FailNext(rule) }

// DelayNext installs a delay rule.
func (s *Server) DelayNext(rule DelayRule) { s.faults.DelayNext(rule) }

// ExpireNextContinue makes the next count list requests with a continue
// token for resources matching m answer 410 Expired. inconsistent adds the
// token that resumes at the latest resourceVersion, as the real server
// does after compaction.
func (s *Server) ExpireNextContinue(m Match, count int, inconsistent bool) {
	s.faults.ExpireNextContinue(m, count, inconsistent)
}

// ClearFaults removes every pending rule and stops serving stale lists.
func (s *Server) ClearFaults() { s.faults.Clear() }

// ServeStaleLists makes lists at resourceVersion "0" (served from the
// watch cache on a real server, which may lag) read the snapshot at rv
// instead of the current state, until StopStaleLists. rv must not be
// compacted by then; a compacted rv falls back to the current state.
func (s *Server) ServeStaleLists(rv int64) { s.faults.SetStale(rv) }

// StopStaleLists ends ServeStaleLists.
func (s *Server) StopStaleLists() { s.ServeStaleLists(0) }

// CompactNow compacts the history up to the current resourceVersion:
// every older resourceVersion becomes too old (410) for watches, exact
// lists and continue tokens. It returns the compaction point.
func (s *Server) CompactNow() int64 {
	rv := s.store.Compact(s.store.ResourceVersion())
	s.log.Info("fault", "fault", "compact", "resourceVersion", rv)
	return rv
}

// CompactTo compacts the history up to rv.
func (s *Server) CompactTo(rv int64) int64 {
	at := s.store.Compact(rv)
	s.log.Info("fault", "fault", "compact", "resourceVersion", at)
	return at
}

// ResourceVersion returns the server's current resourceVersion.
func (s *Server) ResourceVersion() int64 { return s.store.ResourceVersion() }

// eachMatchingWatcher calls fn on every open watch that m selects, under
// the store's watcher lock (fn must not take it), and returns how many.
func (s *Server) eachMatchingWatcher(m Match, fn func(*storage.Watcher)) int {
	n := 0
	s.store.EachWatcher(func(w *storage.Watcher) {
		if faults.Selects(m, w) {
			fn(w)
			n++
		}
	})
	return n
}

// CutWatches ends every open watch that m matches (Verb is ignored) and
// returns how many.
func (s *Server) CutWatches(m Match, mode CutMode) int {
	reason := faults.StopReason(mode)
	var hit []*storage.Watcher
	s.eachMatchingWatcher(m, func(w *storage.Watcher) { hit = append(hit, w) })
	for _, w := range hit {
		s.store.Unregister(w)
		w.Stop(reason)
	}
	s.log.Info("fault", "fault", "cut watches", "count", len(hit), "mode", int(mode))
	return len(hit)
}

// CorruptNextWatchFrame makes the next event of every open watch that m
// matches go out as a malformed frame ({"type":…,"object":{not json}}) and
// returns how many watches were marked. The event itself is lost; the
// stream goes on.
func (s *Server) CorruptNextWatchFrame(m Match) int {
	n := s.eachMatchingWatcher(m, (*storage.Watcher).MarkCorrupt)
	s.log.Info("fault", "fault", "corrupt next watch frame", "count", n)
	return n
}

// StallWatches makes every open watch that m matches stop reading its
// queue, so the slow-watcher rule closes it once the queue fills. It
// returns how many.
func (s *Server) StallWatches(m Match) int {
	n := s.eachMatchingWatcher(m, (*storage.Watcher).MarkStalled)
	s.log.Info("fault", "fault", "stall watches", "count", n)
	return n
}

// Restart simulates an API server restart: every watch ends and every
// connection drops; the data stays. With compact, every older
// resourceVersion becomes too old, as after a real restart.
func (s *Server) Restart(compact bool) {
	s.store.CloseAll(storage.StopCut, false)
	if compact {
		s.store.Compact(s.store.ResourceVersion())
	}
	n := s.dropConnections()
	s.log.Info("fault", "fault", "restart", "connections", n, "compact", compact)
}

// staleOrCurrent is the snapshot a resourceVersion=0 list reads: the
// current one, or a stale one while ServeStaleLists is on.
func (s *Server) staleOrCurrent(table string) (pmap.Map[*storage.Object], int64) {
	stale := s.faults.Stale()
	if stale > 0 && stale <= s.store.ResourceVersion() {
		if snap, err := s.store.At(table, stale); err == nil {
			s.log.Info("fault", "fault", "stale list", "resourceVersion", stale)
			return snap, stale
		}
	}
	return s.store.Current(table)
}
