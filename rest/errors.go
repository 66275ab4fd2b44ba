package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
)

// StatusError is the error a request returns when the server answered with a
// status outside 2xx. Status is what the server sent (a decoded Status
// body), or, when the body was not a Status (a plain-text 429, an HTML page
// from a proxy), a Status built from the HTTP code with the body text as its
// message.
//
// Classify a StatusError with IsNotFound, IsGone, IsConflict and the other
// Is functions, never by its message.
type StatusError struct {
	Status meta.Status
	// RetryAfter is the wait the server asked for in its Retry-After header,
	// or 0 when there was none (see also Status.Details.RetryAfterSeconds).
	RetryAfter time.Duration
}

// Error returns "<code> <reason>: <message>".
func (e *StatusError) Error() string { return e.Status.Error() }

// maxErrorBody bounds how much of a non-Status error body is read, and
// maxErrorMessage how much of it lands in the message.
const (
	maxErrorBody    = 64 << 10
	maxErrorMessage = 512
)

// reasonForCode is the reason the API server pairs with an HTTP code, used
// when a response carries no Status body.
func reasonForCode(code int) meta.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return meta.ReasonBadRequest
	case http.StatusUnauthorized:
		return meta.ReasonUnauthorized
	case http.StatusForbidden:
		return meta.ReasonForbidden
	case http.StatusNotFound:
		return meta.ReasonNotFound
	case http.StatusMethodNotAllowed:
		return meta.ReasonMethodNotAllowed
	case http.StatusNotAcceptable:
		return meta.ReasonNotAcceptable
	case http.StatusConflict:
		return meta.ReasonConflict
	case http.StatusGone:
		return meta.ReasonGone
	case http.StatusRequestEntityTooLarge:
		return meta.ReasonRequestEntityTooLarge
	case http.StatusUnsupportedMediaType:
		return meta.ReasonUnsupportedMediaType
	case http.StatusUnprocessableEntity:
		return meta.ReasonInvalid
	case http.StatusTooManyRequests:
		return meta.ReasonTooManyRequests
	case http.StatusInternalServerError:
		return meta.ReasonInternalError
	case http.StatusServiceUnavailable:
		return meta.ReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return meta.ReasonTimeout
	}
	return meta.ReasonUnknown
}

// decodeStatusError turns an error response (code and body) into a
// *StatusError. A body that decodes as a Status object is used as is (its
// code filled in from the response when missing); anything else becomes a
// Status whose reason comes from the code and whose message is the body
// text, truncated. retryAfter is the raw Retry-After header value.
func decodeStatusError(code int, body []byte, retryAfter string) *StatusError {
	e := &StatusError{RetryAfter: parseRetryAfter(retryAfter)}
	if bytes.HasPrefix(body, kubeproto.Magic) {
		// A protobuf Status, for a client that accepts protobuf.
		if js, err := kubeproto.Decode(body); err == nil {
			body = js
		}
	}
	var st meta.Status
	if err := json.Unmarshal(body, &st); err == nil && st.Kind == "Status" {
		if st.Code == 0 {
			st.Code = int32(code)
		}
		if st.Status == "" {
			st.Status = meta.StatusFailure
		}
		e.Status = st
		return e
	}
	msg := errorBodyText(body)
	if msg == "" {
		msg = fmt.Sprintf("the server responded with the status code %d but did not return more information", code)
	}
	e.Status = *meta.NewStatus(int32(code), reasonForCode(code), msg)
	return e
}

// errorBodyText makes a message out of an error body that is not a Status:
// valid UTF-8, whitespace collapsed, at most maxErrorMessage bytes.
func errorBodyText(body []byte) string {
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxErrorMessage {
		return s
	}
	cut := maxErrorMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " ... (truncated)"
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// is not used by the API server, so only seconds are understood.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	const maxSeconds = 24 * 60 * 60
	return time.Duration(min(n, maxSeconds)) * time.Second
}

// statusOf finds the Status an error carries: a *StatusError from a request
// or a bare *meta.Status (as a watch ERROR event holds).
func statusOf(err error) *meta.Status {
	var se *StatusError
	if errors.As(err, &se) {
		return &se.Status
	}
	var st *meta.Status
	if errors.As(err, &st) {
		return st
	}
	return nil
}

// IsNotFound reports whether err carries a 404 NotFound.
func IsNotFound(err error) bool { return statusOf(err).IsNotFound() }

// IsAlreadyExists reports whether err carries a 409 AlreadyExists (a create
// of a name in use).
func IsAlreadyExists(err error) bool { return statusOf(err).IsAlreadyExists() }

// IsConflict reports whether err carries a 409 Conflict (a write with a
// stale resourceVersion, or a server-side apply field conflict).
func IsConflict(err error) bool { return statusOf(err).IsConflict() }

// IsGone reports whether err carries a 410 (reason Expired or Gone): the
// resourceVersion or continue token is too old, so the client must list
// again.
func IsGone(err error) bool { return statusOf(err).IsGone() }

// IsInvalid reports whether err carries a 422 Invalid.
func IsInvalid(err error) bool { return statusOf(err).IsInvalid() }

// IsBadRequest reports whether err carries a 400 BadRequest.
func IsBadRequest(err error) bool { return statusOf(err).IsBadRequest() }

// IsUnauthorized reports whether err carries a 401: missing or rejected
// credentials.
func IsUnauthorized(err error) bool { return statusOf(err).IsUnauthorized() }

// IsForbidden reports whether err carries a 403: the user may not do this.
func IsForbidden(err error) bool { return statusOf(err).IsForbidden() }

// IsTimeout reports whether err carries a 504 Timeout or a 500
// ServerTimeout.
func IsTimeout(err error) bool { return statusOf(err).IsTimeout() }

// IsInternalError reports whether err carries a 500 InternalError.
func IsInternalError(err error) bool { return statusOf(err).IsInternalError() }

// IsServiceUnavailable reports whether err carries a 503.
func IsServiceUnavailable(err error) bool { return statusOf(err).IsServiceUnavailable() }

// IsResourceVersionTooLarge reports whether err is the server's answer to a
// resourceVersion newer than it has seen (a Timeout with a
// ResourceVersionTooLarge cause); retry with an unset resourceVersion.
func IsResourceVersionTooLarge(err error) bool {
	return statusOf(err).IsResourceVersionTooLarge()
}

// IsTooManyRequests reports whether err carries a 429 TooManyRequests and,
// if so, how long the server asked the client to wait: the Retry-After
// header when present, else details.retryAfterSeconds, else 0.
func IsTooManyRequests(err error) (retryAfter time.Duration, ok bool) {
	st := statusOf(err)
	if !st.IsTooManyRequests() {
		return 0, false
	}
	return SuggestsRetryAfter(err), true
}

// SuggestsRetryAfter returns the wait the server suggested with any error
// (a 429, a 504 too-large resourceVersion, a 503): the Retry-After header
// when present, else details.retryAfterSeconds, else 0.
func SuggestsRetryAfter(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		return se.RetryAfter
	}
	if s := statusOf(err).RetryAfterSeconds(); s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}
