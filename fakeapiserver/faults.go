package fakeapiserver

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/pmap"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// Fault injection: make the server misbehave on purpose, the ways real
// servers and networks do. Every injected fault is named in the request
// log (the "fault" attribute). The same controls are served over HTTP
// under /kubecache-admin/ when Options.Admin is set (admin.go).

// Match selects requests (or open watches) by verb, resource and
// namespace; an empty field matches anything. Resource is the plural name,
// optionally qualified by group: "pods", "deployments.apps".
type Match = request.Match

// FailRule makes the next Count requests that match answer with an error
// instead of being served.
type FailRule struct {
	request.Match
	// Count is how many requests fail; 0 means 1.
	Count int `json:"count,omitempty"`
	// Code is the HTTP status: 429, 500, 503, 504, 410, 401, 403…
	Code int `json:"code"`
	// RetryAfterSeconds sets details.retryAfterSeconds and Retry-After.
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
	// Message overrides the Status message.
	Message string `json:"message,omitempty"`
	// PlainText answers with a text body instead of a Status, as the
	// real server's priority-and-fairness filter does for 429.
	PlainText bool `json:"plainText,omitempty"`
}

// DelayRule holds the next Count matching requests for Delay (by the
// server's Clock) before serving them.
type DelayRule struct {
	request.Match
	Count int           `json:"count,omitempty"`
	Delay time.Duration `json:"delay"`
}

// CutMode says how CutWatches ends a watch.
type CutMode int

const (
	// CutAbort drops the connection between two events (the client sees
	// an unexpected end of the stream).
	CutAbort CutMode = iota
	// CutMidFrame writes half an event, then drops the connection.
	CutMidFrame
	// CutClean ends the response normally, as a watch timeout does.
	CutClean
)

type faults struct {
	s *Server
	// mu guards every field below.
	mu     sync.Mutex
	fails  []*FailRule
	delays []*DelayRule
	// expireContinue counts continue requests to answer 410, per match.
	expireContinue []*continueFault
	// stale, when set, serves resourceVersion=0 lists from this snapshot
	// resourceVersion.
	stale int64
	// release is closed to end injected delays early (on Close).
	release chan struct{}
}

type continueFault struct {
	request.Match
	count        int
	inconsistent bool
}

func newFaults(s *Server) *faults {
	return &faults{s: s, release: make(chan struct{})}
}

func (f *faults) releaseAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.release:
	default:
		close(f.release)
	}
}

// FailNext installs a rule; rules are tried in the order they were added.
func (s *Server) FailNext(rule FailRule) {
	if rule.Count <= 0 {
		rule.Count = 1
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.fails = append(s.faults.fails, &rule)
}

// DelayNext installs a delay rule.
func (s *Server) DelayNext(rule DelayRule) {
	if rule.Count <= 0 {
		rule.Count = 1
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.delays = append(s.faults.delays, &rule)
}

// ExpireNextContinue makes the next count list requests with a continue
// token for resources matching m answer 410 Expired. inconsistent adds the
// token that resumes at the latest resourceVersion, as the real server
// does after compaction.
func (s *Server) ExpireNextContinue(m request.Match, count int, inconsistent bool) {
	if count <= 0 {
		count = 1
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.expireContinue = append(s.faults.expireContinue, &continueFault{Match: m, count: count, inconsistent: inconsistent})
}

// ClearFaults removes every pending rule and stops serving stale lists.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.fails, s.faults.delays, s.faults.expireContinue, s.faults.stale = nil, nil, nil, 0
}

// ServeStaleLists makes lists at resourceVersion "0" (served from the
// watch cache on a real server, which may lag) read the snapshot at rv
// instead of the current state, until StopStaleLists. rv must not be
// compacted by then; a compacted rv falls back to the current state.
func (s *Server) ServeStaleLists(rv int64) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.stale = rv
}

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

// CutWatches ends every open watch that m matches (Verb is ignored) and
// returns how many.
func (s *Server) CutWatches(m request.Match, mode CutMode) int {
	reason := storage.StopCut
	switch mode {
	case CutMidFrame:
		reason = storage.StopCutMidFrame
	case CutClean:
		reason = storage.StopResourceGone
	}
	var hit []*storage.Watcher
	s.store.EachWatcher(func(w *storage.Watcher) {
		if (m.Namespace == "" || m.Namespace == w.Info.Namespace) && m.MatchesResource(w.Info.Group, w.Info.Resource) {
			hit = append(hit, w)
		}
	})
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
func (s *Server) CorruptNextWatchFrame(m request.Match) int {
	n := 0
	s.store.EachWatcher(func(w *storage.Watcher) {
		if (m.Namespace == "" || m.Namespace == w.Info.Namespace) && m.MatchesResource(w.Info.Group, w.Info.Resource) {
			w.MarkCorrupt()
			n++
		}
	})
	s.log.Info("fault", "fault", "corrupt next watch frame", "count", n)
	return n
}

// StallWatches makes every open watch that m matches stop reading its
// queue, so the slow-watcher rule closes it once the queue fills. It
// returns how many.
func (s *Server) StallWatches(m request.Match) int {
	n := 0
	s.store.EachWatcher(func(w *storage.Watcher) {
		if (m.Namespace == "" || m.Namespace == w.Info.Namespace) && m.MatchesResource(w.Info.Group, w.Info.Resource) {
			w.MarkStalled()
			n++
		}
	})
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

// apply runs the delay and fail rules for a request. It reports whether
// the request was answered, and a note for the request log.
func (f *faults) apply(w http.ResponseWriter, r *http.Request, info request.Info, isResource bool) (string, bool) {
	verb := info.Verb
	if !isResource || info.Discovery {
		verb = ""
	}
	f.mu.Lock()
	var delay time.Duration
	for i, d := range f.delays {
		if d.Matches(verb, info) {
			delay = d.Delay
			if d.Count--; d.Count == 0 {
				f.delays = append(f.delays[:i], f.delays[i+1:]...)
			}
			break
		}
	}
	var fail *FailRule
	for i, rule := range f.fails {
		if rule.Matches(verb, info) {
			c := *rule
			fail = &c
			if rule.Count--; rule.Count == 0 {
				f.fails = append(f.fails[:i], f.fails[i+1:]...)
			}
			break
		}
	}
	release := f.release
	f.mu.Unlock()

	note := ""
	if delay > 0 {
		note = "delay " + delay.String()
		t := f.s.clock.NewTimer(delay)
		select {
		case <-t.C():
		case <-r.Context().Done():
		case <-release:
		}
		t.Stop()
	}
	if fail == nil {
		return note, false
	}
	if note != "" {
		note += ", "
	}
	note += "fail " + strconv.Itoa(fail.Code)
	if fail.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(fail.RetryAfterSeconds))
	}
	if fail.PlainText {
		msg := fail.Message
		if msg == "" {
			msg = "Too many requests, please try again later."
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(fail.Code)
		fmt.Fprintln(w, msg)
		return note, true
	}
	request.WriteStatus(w, r, faultStatus(fail))
	return note, true
}

// faultStatus builds the Status a real server sends with that code.
func faultStatus(rule *FailRule) *meta.Status {
	reason, msg := meta.ReasonUnknown, ""
	switch rule.Code {
	case 401:
		reason, msg = meta.ReasonUnauthorized, "Unauthorized"
	case 403:
		reason, msg = meta.ReasonForbidden, "forbidden by fault injection"
	case 404:
		reason, msg = meta.ReasonNotFound, "the server could not find the requested resource"
	case 409:
		reason, msg = meta.ReasonConflict, "the server reported a conflict"
	case 410:
		reason, msg = meta.ReasonExpired, msgListExpired
	case 429:
		reason, msg = meta.ReasonTooManyRequests, "the server has received too many requests and has asked us to try again later"
	case 500:
		reason, msg = meta.ReasonInternalError, "Internal error occurred: injected fault"
	case 503:
		reason, msg = meta.ReasonServiceUnavailable, "the server is currently unable to handle the request"
	case 504:
		reason, msg = meta.ReasonTimeout, "the server was unable to return a response in the time allotted, but may still be processing the request"
	default:
		msg = fmt.Sprintf("injected fault %d", rule.Code)
	}
	if rule.Message != "" {
		msg = rule.Message
	}
	code := int32(rule.Code)
	st := apistatus.New(code, reason, msg)
	if rule.RetryAfterSeconds > 0 {
		st.Details = &meta.StatusDetails{RetryAfterSeconds: int32(rule.RetryAfterSeconds)}
	}
	return st
}

// takeContinueExpiry consumes one ExpireNextContinue rule for res.
func (f *faults) takeContinueExpiry(res *registry.Resource) *continueFault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range f.expireContinue {
		if c.MatchesResource(res.Group, res.Name) {
			cp := *c
			if c.count--; c.count == 0 {
				f.expireContinue = append(f.expireContinue[:i], f.expireContinue[i+1:]...)
			}
			f.s.log.Info("fault", "fault", "expire continue token", "resource", res.GroupResource())
			return &cp
		}
	}
	return nil
}

// staleOrCurrent is the snapshot a resourceVersion=0 list reads: the
// current one, or a stale one while ServeStaleLists is on.
func (s *Server) staleOrCurrent(table string) (pmap.Map[*storage.Object], int64) {
	s.faults.mu.Lock()
	stale := s.faults.stale
	s.faults.mu.Unlock()
	if stale > 0 && stale <= s.store.ResourceVersion() {
		if snap, err := s.store.At(table, stale); err == nil {
			s.log.Info("fault", "fault", "stale list", "resourceVersion", stale)
			return snap, stale
		}
	}
	return s.store.Current(table)
}
