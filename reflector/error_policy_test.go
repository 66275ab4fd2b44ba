package reflector

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/watch"
)

func TestClassify(t *testing.T) {
	tooLarge := status(504, meta.ReasonTimeout)
	tooLarge.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge}}}
	var typeErr error = &json.UnmarshalTypeError{Value: "string", Field: "spec.replicas"}
	for _, tc := range []struct {
		name string
		err  error
		want ErrorClass
	}{
		{"410 Expired", status(410, meta.ReasonExpired), ClassExpired},
		{"410 Gone", status(410, meta.ReasonGone), ClassExpired},
		{"410 without reason", &meta.Status{Code: 410}, ClassExpired},
		{"410 from the client", fmt.Errorf("list pods: %w", &rest.StatusError{Status: *status(410, meta.ReasonExpired)}), ClassExpired},
		{"too large resourceVersion", tooLarge, ClassExpired},
		{"429", status(429, meta.ReasonTooManyRequests), ClassThrottled},
		{"429 plain text from the client", &rest.StatusError{Status: *meta.NewStatus(429, meta.ReasonTooManyRequests, "Too many requests"), RetryAfter: time.Second}, ClassThrottled},
		{"500", status(500, meta.ReasonInternalError), ClassTransient},
		{"500 ServerTimeout", status(500, meta.ReasonServerTimeout), ClassTransient},
		{"502 without reason", &meta.Status{Code: 502}, ClassTransient},
		{"503", status(503, meta.ReasonServiceUnavailable), ClassTransient},
		{"504 Timeout", status(504, meta.ReasonTimeout), ClassTransient},
		{"401", status(401, meta.ReasonUnauthorized), ClassNeedsHuman},
		{"403", status(403, meta.ReasonForbidden), ClassNeedsHuman},
		{"404", status(404, meta.ReasonNotFound), ClassNeedsHuman},
		{"400", status(400, meta.ReasonBadRequest), ClassNeedsHuman},
		{"405", status(405, meta.ReasonMethodNotAllowed), ClassNeedsHuman},
		{"422", status(422, meta.ReasonInvalid), ClassNeedsHuman},
		{"invalid request", fmt.Errorf("list: %w", rest.ErrInvalidRequest), ClassNeedsHuman},
		{"object does not fit the type", fmt.Errorf("decode Obj: %w", typeErr), ClassNeedsHuman},
		{"connection refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, ClassTransient},
		{"connection reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, ClassTransient},
		{"cut mid-frame", fmt.Errorf("watch: %w", io.ErrUnexpectedEOF), ClassTransient},
		{"malformed frame", &watch.SyntaxError{Offset: 3, Msg: "bad"}, ClassTransient},
		{"transport", fmt.Errorf("%w: reset", watch.ErrTransport), ClassTransient},
		{"Status with no code", &meta.Status{}, ClassTransient},
		{"stale list", &StaleError{ResourceVersion: "1", LastSynced: "2"}, ClassProtocol},
		{"short watch", ErrWatchClosedEarly, ClassProtocol},
		{"streaming list timeout", fmt.Errorf("x: %w", ErrInitialEventsTimeout), ClassProtocol},
		{"streaming list incomplete", ErrInitialEventsIncomplete, ClassProtocol},
		{"not streaming", ErrNotStreaming, ClassProtocol},
		{"no resourceVersion", ErrNoResourceVersion, ClassProtocol},
		{"continue loop", ErrContinueLoop, ClassProtocol},
		{"anything else", errors.New("boom"), ClassTransient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Classify(tc.err), "Classify(%v)", tc.err)
		})
	}
}

func TestRetryAfter(t *testing.T) {
	st := status(429, meta.ReasonTooManyRequests)
	st.Details = &meta.StatusDetails{RetryAfterSeconds: 3}
	assert.Equal(t, 3*time.Second, retryAfter(st), "details.retryAfterSeconds")
	assert.Equal(t, 5*time.Second, retryAfter(&rest.StatusError{Status: *st, RetryAfter: 5 * time.Second}), "the header wins")
	assert.Zero(t, retryAfter(errors.New("x")))
}

func TestErrorMessageNamesStepAndResource(t *testing.T) {
	e := &Error{Op: "list", Resource: "configmaps", Err: status(410, meta.ReasonExpired)}
	assert.Equal(t, "list configmaps: 410 Expired: test Expired", e.Error())
	assert.ErrorIs(t, e, e.Err)
	for c := ClassTransient; c <= ClassProtocol; c++ {
		assert.NotContains(t, c.String(), "ErrorClass(")
	}
}
