package faults

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

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

// Injector holds the pending request faults: fail and delay rules,
// continue-token expiries and stale lists. It is safe for concurrent use.
type Injector struct {
	// clock times injected delays (the server's clock).
	clock clock.Clock
	log   *slog.Logger

	// mu guards every field below.
	mu     sync.Mutex
	fails  []*FailRule
	delays []*DelayRule
	// expireContinue counts continue requests to answer 410, per match.
	expireContinue []*ContinueFault
	// stale, when set, serves resourceVersion=0 lists from this snapshot
	// resourceVersion.
	stale int64
	// release is closed to end injected delays early (on Close).
	release chan struct{}
}

// ContinueFault is one ExpireNextContinue rule.
type ContinueFault struct {
	request.Match
	// Count is how many continue requests are still to expire.
	Count int
	// Inconsistent adds the token that resumes at the latest
	// resourceVersion to the 410.
	Inconsistent bool
}

// New returns an Injector without rules. Injected delays wait on clk;
// log records each fault.
func New(clk clock.Clock, log *slog.Logger) *Injector {
	return &Injector{clock: clk, log: log, release: make(chan struct{})}
}

// ReleaseAll ends every injected delay now and makes later ones end at
// once (the server is closing).
func (f *Injector) ReleaseAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.release:
	default:
		close(f.release)
	}
}

// FailNext installs a rule; rules are tried in the order they were added.
func (f *Injector) FailNext(rule FailRule) {
	if rule.Count <= 0 {
		rule.Count = 1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fails = append(f.fails, &rule)
}

// DelayNext installs a delay rule.
func (f *Injector) DelayNext(rule DelayRule) {
	if rule.Count <= 0 {
		rule.Count = 1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delays = append(f.delays, &rule)
}

// ExpireNextContinue makes the next count continued lists of resources
// matching m expire (see ContinueFault).
func (f *Injector) ExpireNextContinue(m request.Match, count int, inconsistent bool) {
	if count <= 0 {
		count = 1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.expireContinue = append(f.expireContinue, &ContinueFault{Match: m, Count: count, Inconsistent: inconsistent})
}

// Clear removes every pending rule and stops serving stale lists.
func (f *Injector) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fails, f.delays, f.expireContinue, f.stale = nil, nil, nil, 0
}

// SetStale makes resourceVersion=0 lists read the snapshot at rv (0:
// the current state).
func (f *Injector) SetStale(rv int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stale = rv
}

// Stale returns the resourceVersion SetStale set (0: none).
func (f *Injector) Stale() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stale
}

// Selects reports whether the watch fault rule m applies to the open
// watch w (m's Verb is ignored).
func Selects(m request.Match, w *storage.Watcher) bool {
	return (m.Namespace == "" || m.Namespace == w.Info.Namespace) && m.MatchesResource(w.Info.Group, w.Info.Resource)
}

// StopReason is why a watch cut with mode ends.
func StopReason(mode CutMode) storage.StopReason {
	switch mode {
	case CutMidFrame:
		return storage.StopCutMidFrame
	case CutClean:
		return storage.StopResourceGone
	}
	return storage.StopCut
}

// Apply runs the delay and fail rules for a request. It reports whether
// the request was answered, and a note for the request log.
func (f *Injector) Apply(w http.ResponseWriter, r *http.Request, info request.Info, isResource bool) (string, bool) {
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
		c, stop := f.clock.NewTimer(delay)
		select {
		case <-c:
		case <-r.Context().Done():
		case <-release:
		}
		stop()
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
	request.WriteStatus(w, r, Status(fail))
	return note, true
}

// Status builds the Status a real server sends with that code.
func Status(rule *FailRule) *meta.Status {
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
		reason, msg = meta.ReasonExpired, apistatus.MsgListExpired
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

// TakeContinueExpiry consumes one ExpireNextContinue rule for res, or
// returns nil.
func (f *Injector) TakeContinueExpiry(res *registry.Resource) *ContinueFault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range f.expireContinue {
		if c.MatchesResource(res.Group, res.Name) {
			cp := *c
			if c.Count--; c.Count == 0 {
				f.expireContinue = append(f.expireContinue[:i], f.expireContinue[i+1:]...)
			}
			f.log.Info("fault", "fault", "expire continue token", "resource", res.GroupResource())
			return &cp
		}
	}
	return nil
}
