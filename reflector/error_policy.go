package reflector

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/kubecache/kubecache/meta"
)

// The error policy. Every error the reflector meets is classified by type,
// code and reason (never by message text), reported to Options.OnError as an
// *Error carrying the class and the next state, and answered as follows.
//
//	class        errors                                    answer
//	-----------  ----------------------------------------  ---------------------------------------------
//	Transient    connection refused or reset, EOF, a       wait with exponential backoff (jittered,
//	             body cut mid-frame, a malformed stream,   capped, reset after a quiet period), then
//	             timeouts, 5xx (500, 502, 503, 504)        repeat the step from the same resourceVersion
//	Throttled    429 TooManyRequests                       wait Retry-After (backoff if absent), repeat
//	Expired      410 Expired or Gone (response or ERROR    the resourceVersion is unusable: relist at an
//	             event), 504 ResourceVersionTooLarge       unset resourceVersion (a consistent read)
//	NeedsHuman   401, 403, 404, 400, 405, 406, 415, 422,   report; retry every Backoff.Max; a 404 on a
//	             other 4xx; an object that does not fit T; list or watch means the resource is gone:
//	             a request the client cannot build; a      ResourceGone, reported once, probed by
//	             server that ignores shardSelector         consistent lists after growing waits (gone.go)
//	Protocol     the server broke a promise: a list older  per case, below
//	             than the last synced resourceVersion, a
//	             watch closed at once, a streaming list
//	             without its end bookmark
//
// Protocol cases: a stale list is discarded and the reflector relists at an
// unset resourceVersion; a watch that ends within a second without an event
// is retried with backoff, and the third in a row relists; a streaming list
// that ends before its initial-events-end bookmark is retried with backoff
// up to three times, one that sends no bookmark within
// InitialEventsTimeout, or sends a change before it, is abandoned for
// LIST then WATCH for the rest of Run.
//
// A streaming list (docs/api-semantics.md, "Streaming lists") follows the
// server's own rule when its WATCH request fails: 429, connection refused,
// 410 and too-large are retried; any other error falls back to LIST then
// WATCH, and the reflector does not try streaming again during that Run.
//
// Nothing makes the reflector give up: it keeps retrying until its context
// is cancelled, and HasSynced stays false until a list succeeds. A stuck
// reflector is visible through OnError, never a silent spin or a crash.

// ErrorClass is the error policy's verdict on one error.
type ErrorClass int

// The classes of the error policy.
const (
	// ClassTransient: the network or the server failed for now; retry
	// with backoff from the same resourceVersion.
	ClassTransient ErrorClass = iota + 1
	// ClassThrottled: 429; wait as long as the server asked.
	ClassThrottled
	// ClassExpired: the resourceVersion is unusable (410, too large);
	// relist at an unset resourceVersion.
	ClassExpired
	// ClassNeedsHuman: retrying will not help until someone fixes
	// credentials, permissions, the resource or the request; report and
	// retry slowly.
	ClassNeedsHuman
	// ClassProtocol: the server broke a promise of the list/watch
	// protocol; answered case by case (see the policy above).
	ClassProtocol
)

// String names the class.
func (c ErrorClass) String() string {
	switch c {
	case ClassTransient:
		return "transient"
	case ClassThrottled:
		return "throttled"
	case ClassExpired:
		return "expired"
	case ClassNeedsHuman:
		return "needs-human"
	case ClassProtocol:
		return "protocol"
	}
	return fmt.Sprintf("ErrorClass(%d)", int(c))
}

// The protocol errors the reflector detects itself.
var (
	// ErrWatchClosedEarly: a watch ended within a second without any event.
	ErrWatchClosedEarly = errors.New("watch closed within a second without an event")
	// ErrInitialEventsTimeout: a streaming list sent no
	// k8s.io/initial-events-end bookmark within InitialEventsTimeout.
	ErrInitialEventsTimeout = errors.New("streaming list sent no initial-events-end bookmark in time")
	// ErrInitialEventsIncomplete: a streaming list ended before its
	// k8s.io/initial-events-end bookmark.
	ErrInitialEventsIncomplete = errors.New("streaming list ended before its initial-events-end bookmark")
	// ErrNotStreaming: the server answered a streaming list with something
	// other than initial ADDED events (a change, an unannotated start): it
	// does not implement streaming lists.
	ErrNotStreaming = errors.New("server does not implement streaming lists")
	// ErrNoResourceVersion: a list response carried no resourceVersion to
	// watch from.
	ErrNoResourceVersion = errors.New("list response has no resourceVersion")
	// ErrContinueLoop: the server handed back a continue token it had
	// already handed out during the same list (the one it was given, or
	// any earlier one), which would page forever.
	ErrContinueLoop = errors.New("server repeated a continue token")
	// ErrListTooLarge: a list (all its pages, or a streaming list's
	// initial events) passed Options.MaxListItems or MaxListPages.
	ErrListTooLarge = errors.New("list too large")
	// ErrInvalidResourceVersion: a watch event from a server that numbers
	// its resourceVersions carried one that is not an unsigned integer.
	// The event is not applied and the watch ends, to resume from the last
	// good resourceVersion.
	ErrInvalidResourceVersion = errors.New("watch event with a resourceVersion that is not an integer")
	// ErrAlreadyRunning: Run or ListAndWatch was called while another call
	// on the same Reflector had not returned.
	ErrAlreadyRunning = errors.New("reflector is already running")
)

// StaleError reports a list or streaming list whose resourceVersion is older
// than one the reflector already synced to: applying it would move the
// store back in time.
type StaleError struct {
	ResourceVersion string
	LastSynced      string
}

// Error returns "stale list at rv=<rv>, older than last synced rv=<rv>".
func (e *StaleError) Error() string {
	return fmt.Sprintf("stale list at rv=%s, older than last synced rv=%s", e.ResourceVersion, e.LastSynced)
}

// Error is what Options.OnError receives: the step that failed, the error,
// its class and the state the reflector goes to next.
type Error struct {
	// Op is the step: "list", "streaming list", "watch" or "store".
	Op string
	// Resource is Options.Name.
	Resource string
	// Class is the error policy's verdict.
	Class ErrorClass
	// Err is the error itself, carrying the server's Status when there
	// was one.
	Err error
	// Next is what the reflector does about it.
	Next State
}

// Error returns "<op> <resource>: <err>".
func (e *Error) Error() string { return e.Op + " " + e.Resource + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Classify returns the error policy's class for err. It never looks at
// message text. err must not be nil.
func Classify(err error) ErrorClass {
	var stale *StaleError
	switch {
	case errors.As(err, &stale),
		errors.Is(err, ErrWatchClosedEarly),
		errors.Is(err, ErrInitialEventsTimeout),
		errors.Is(err, ErrInitialEventsIncomplete),
		errors.Is(err, ErrNotStreaming),
		errors.Is(err, ErrNoResourceVersion),
		errors.Is(err, ErrContinueLoop),
		errors.Is(err, ErrInvalidResourceVersion):
		return ClassProtocol
	case errors.Is(err, ErrListTooLarge), isResponseTooLarge(err), errors.Is(err, ErrShardNotServed):
		// Only a human can tell a hostile server from a bound set too
		// low; retry every Backoff.Max.
		return ClassNeedsHuman
	}
	if st := statusOf(err); st != nil {
		switch {
		case st.IsGone(), st.IsResourceVersionTooLarge():
			return ClassExpired
		case st.IsTooManyRequests():
			return ClassThrottled
		case st.Code >= 500, st.IsTimeout(), st.IsInternalError(), st.IsServiceUnavailable():
			return ClassTransient
		case st.Code >= 400:
			return ClassNeedsHuman
		}
		// A Status with no error code (a watch ERROR event with a 2xx or
		// zero code) says nothing useful: treat the stream as broken.
		return ClassTransient
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) || isInvalidRequest(err) {
		// The server's object does not fit the Go type: the type must
		// change. Malformed bytes, by contrast, are transient.
		return ClassNeedsHuman
	}
	return ClassTransient
}

// statusOf finds the Status an error carries: a bare *meta.Status (a watch
// ERROR event) or the Status inside an error that can return one.
func statusOf(err error) *meta.Status {
	var st *meta.Status
	if errors.As(err, &st) {
		return st
	}
	var carrier interface{ APIStatus() *meta.Status }
	if errors.As(err, &carrier) {
		return carrier.APIStatus()
	}
	return statusFromClient(err)
}

// retryAfter returns how long the server asked the client to wait before
// retrying, or 0.
func retryAfter(err error) time.Duration {
	if d := retryAfterFromClient(err); d > 0 {
		return d
	}
	if s := statusOf(err).RetryAfterSeconds(); s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

// maxRetryAfter caps a server's Retry-After, so a bad header cannot park
// the reflector for a day: 32 s, the longest Retry-After kube-apiserver
// sends (priority and fairness doubles its value up to 32 s; the
// max-in-flight filter and a too-new resourceVersion ask for 1 s), and
// just over the 30 s longest wait of the reflector's own backoff.
const maxRetryAfter = 32 * time.Second

// isNotFound reports a 404.
func isNotFound(err error) bool { return statusOf(err).IsNotFound() }

// isConnectionRefused reports an error from dialling a server that is not
// listening.
func isConnectionRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
