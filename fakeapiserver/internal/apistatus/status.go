package apistatus

import (
	"errors"
	"fmt"

	"github.com/kubecache/kubecache/meta"
)

// New returns a Status with the code, reason and message.
func New(code int32, reason meta.StatusReason, msg string) *meta.Status {
	return meta.NewStatus(code, reason, msg)
}

// BadRequest is the 400 with msg.
func BadRequest(msg string) *meta.Status {
	return New(400, meta.ReasonBadRequest, msg)
}

// GroupResource names a resource in messages and details.
type GroupResource struct {
	Group    string
	Resource string
}

// String returns "resource" or "resource.group", as the real server's
// messages name a resource.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// NotFound is the 404 for a named object of a resource.
func NotFound(gr GroupResource, name string) *meta.Status {
	st := New(404, meta.ReasonNotFound, fmt.Sprintf("%s %q not found", gr, name))
	st.Details = &meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return st
}

// PathNotFound is the 404 for a path the server does not serve.
func PathNotFound() *meta.Status {
	st := New(404, meta.ReasonNotFound, "the server could not find the requested resource")
	st.Details = &meta.StatusDetails{}
	return st
}

// AlreadyExists is the 409 for a create whose name is taken.
func AlreadyExists(gr GroupResource, name string) *meta.Status {
	st := New(409, meta.ReasonAlreadyExists, fmt.Sprintf("%s %q already exists", gr, name))
	st.Details = &meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return st
}

// MsgModified is the Conflict reason of a write whose resourceVersion is
// not the current one.
const MsgModified = "the object has been modified; please apply your changes to the latest version and try again"

// MsgListExpired is the 410 message of a list at a compacted
// resourceVersion.
const MsgListExpired = "The resourceVersion for the provided list is too old."

// Conflict is the 409 for a write that cannot be applied to the object
// name; why completes the message.
func Conflict(gr GroupResource, name, why string) *meta.Status {
	st := New(409, meta.ReasonConflict, fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", gr, name, why))
	st.Details = &meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return st
}

// MethodNotAllowed is the 405 for a verb the resource does not serve.
func MethodNotAllowed() *meta.Status {
	st := New(405, meta.ReasonMethodNotAllowed, "the server does not allow this method on the requested resource")
	st.Details = &meta.StatusDetails{}
	return st
}

// UnsupportedMediaType is the 415 for a request body the server cannot read.
func UnsupportedMediaType(msg string) *meta.Status {
	return New(415, meta.ReasonUnsupportedMediaType, msg)
}

// NotAcceptable is the 406 for an Accept header the server cannot
// answer, in the real server's words; lists and watches (streams) also
// name the watch media types.
func NotAcceptable(stream bool) *meta.Status {
	msg := "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf"
	if stream {
		msg += ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
	}
	return New(406, meta.ReasonNotAcceptable, msg)
}

// TooLarge is the 413 for a request body over limit bytes.
func TooLarge(limit int64) *meta.Status {
	return New(413, meta.ReasonRequestEntityTooLarge, fmt.Sprintf("Request entity too large: limit is %d", limit))
}

// Internal is the 500 that wraps an unexpected error.
func Internal(err error) *meta.Status {
	st := New(500, meta.ReasonInternalError, fmt.Sprintf("Internal error occurred: %v", err))
	st.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Message: err.Error()}}}
	return st
}

// Expired is the 410 for a resourceVersion or continue token older than
// the compaction point.
func Expired(msg string) *meta.Status {
	return New(410, meta.ReasonExpired, msg)
}

// TooLargeRV is the 504 for a read at a resourceVersion newer than the
// store that did not arrive in time.
func TooLargeRV(rv, current int64) *meta.Status {
	st := New(504, meta.ReasonTimeout, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", rv, current))
	st.Details = &meta.StatusDetails{
		Causes:            []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge, Message: "Too large resource version"}},
		RetryAfterSeconds: 1,
	}
	return st
}

// GenericInvalid is the real server's 422 without details (a JSON patch
// that does not apply).
func GenericInvalid() *meta.Status {
	st := New(422, meta.ReasonInvalid, "the server rejected our request due to an error in our request")
	st.Details = &meta.StatusDetails{}
	return st
}

// From turns any handler error into the Status to send.
func From(err error) *meta.Status {
	var st *meta.Status
	if errors.As(err, &st) {
		return st
	}
	return Internal(err)
}
