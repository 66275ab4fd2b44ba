package fakeapiserver

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// inflight bounds the requests served at once, as kube-apiserver's
// max-in-flight filter does: one budget for reads, one for writes, and
// long-running requests (watches, exec, attach, port-forward, proxy, logs)
// not counted. A request past its budget is answered at once with the
// real server's plain-text 429 and Retry-After: 1.
type inflight struct {
	readOnly, mutating chan struct{} // nil: unlimited
}

// newInflight returns the budgets; a negative size means unlimited.
func newInflight(readOnly, mutating int) *inflight {
	l := &inflight{}
	if readOnly > 0 {
		l.readOnly = make(chan struct{}, readOnly)
	}
	if mutating > 0 {
		l.mutating = make(chan struct{}, mutating)
	}
	return l
}

// acquire takes a place in the budget of r's kind; ok is false when the
// budget is full. release gives the place back.
func (l *inflight) acquire(r *http.Request) (release func(), ok bool) {
	budget := l.readOnly
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		budget = l.mutating
	}
	if budget == nil {
		return func() {}, true
	}
	select {
	case budget <- struct{}{}:
		return func() { <-budget }, true
	default:
		return nil, false
	}
}

// tooManyRequests writes what the real server's max-in-flight filter
// writes when its budget is full.
func tooManyRequests(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
}

// longRunning reports the requests that neither count against the
// in-flight budgets nor get the request deadline: watches and the
// streaming subresources, as the real server's long-running check says.
func longRunning(info request.Info, isResource bool) bool {
	if !isResource {
		return false
	}
	if info.Verb == "watch" {
		return true
	}
	switch info.Subresource {
	case "exec", "attach", "portforward", "proxy", "log":
		return true
	}
	return false
}

// withDeadline bounds a request that is not long-running by
// Options.RequestTimeout, or by its ?timeout= when that is shorter (an
// unparsable one is the real server's 400): the context ends then, and so
// does reading the body, so a body that stalls cannot hold the handler.
// The caller calls cancel.
func (s *Server) withDeadline(w http.ResponseWriter, r *http.Request) (_ *http.Request, cancel func(), err error) {
	d := s.opts.RequestTimeout
	if v := r.URL.Query().Get("timeout"); v != "" {
		t, err := time.ParseDuration(v)
		if err != nil {
			return r, nil, apistatus.BadRequest(fmt.Sprintf("invalid timeout specified in the request URL - %v", err))
		}
		if t > 0 && t < d {
			d = t
		}
	}
	deadline := time.Now().Add(d)
	// Errors mean the connection cannot set deadlines (a test recorder):
	// the context still ends.
	_ = http.NewResponseController(w).SetReadDeadline(deadline)
	ctx, cancelCtx := context.WithDeadline(r.Context(), deadline)
	return r.WithContext(ctx), cancelCtx, nil
}

// requestEnded returns the real server's 504 when ctx has ended (the
// request's deadline passed, or its client went away), so that a write
// whose work took that long is not committed for a client that no longer
// waits for it; nil otherwise.
func requestEnded(ctx context.Context) error {
	if ctx.Err() != nil {
		return apistatus.RequestTimedOut()
	}
	return nil
}
