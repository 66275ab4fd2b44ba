package fakeapiserver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/meta"
)

// This file builds the Status bodies of the real server's errors, with its
// messages, reasons and details. Handlers return *meta.Status as an error;
// writeError sends it.

func newStatus(code int32, reason meta.StatusReason, msg string) *meta.Status {
	return meta.NewStatus(code, reason, msg)
}

func errBadRequest(msg string) *meta.Status {
	return newStatus(400, meta.ReasonBadRequest, msg)
}

func errNotFound(r *Resource, name string) *meta.Status {
	st := newStatus(404, meta.ReasonNotFound, fmt.Sprintf("%s %q not found", r.groupResource(), name))
	st.Details = &meta.StatusDetails{Name: name, Group: r.Group, Kind: r.Name}
	return st
}

// errNotFoundGR is errNotFound for a resource that is not served (a
// missing namespace when namespaces are served under "" group).
func errNotFoundGR(group, resource, name string) *meta.Status {
	gr := resource
	if group != "" {
		gr += "." + group
	}
	st := newStatus(404, meta.ReasonNotFound, fmt.Sprintf("%s %q not found", gr, name))
	st.Details = &meta.StatusDetails{Name: name, Group: group, Kind: resource}
	return st
}

func errPathNotFound() *meta.Status {
	st := newStatus(404, meta.ReasonNotFound, "the server could not find the requested resource")
	st.Details = &meta.StatusDetails{}
	return st
}

func errAlreadyExists(r *Resource, name string) *meta.Status {
	st := newStatus(409, meta.ReasonAlreadyExists, fmt.Sprintf("%s %q already exists", r.groupResource(), name))
	st.Details = &meta.StatusDetails{Name: name, Group: r.Group, Kind: r.Name}
	return st
}

const msgModified = "the object has been modified; please apply your changes to the latest version and try again"

func errConflict(r *Resource, name, why string) *meta.Status {
	st := newStatus(409, meta.ReasonConflict, fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", r.groupResource(), name, why))
	st.Details = &meta.StatusDetails{Name: name, Group: r.Group, Kind: r.Name}
	return st
}

func errMethodNotAllowed() *meta.Status {
	st := newStatus(405, meta.ReasonMethodNotAllowed, "the server does not allow this method on the requested resource")
	st.Details = &meta.StatusDetails{}
	return st
}

func errUnsupportedMediaType(msg string) *meta.Status {
	return newStatus(415, meta.ReasonUnsupportedMediaType, msg)
}

func errNotAcceptable() *meta.Status {
	return newStatus(406, meta.ReasonNotAcceptable, "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf")
}

func errTooLarge(limit int64) *meta.Status {
	return newStatus(413, meta.ReasonRequestEntityTooLarge, fmt.Sprintf("Request entity too large: limit is %d", limit))
}

func errInternal(err error) *meta.Status {
	st := newStatus(500, meta.ReasonInternalError, fmt.Sprintf("Internal error occurred: %v", err))
	st.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Message: err.Error()}}}
	return st
}

func errExpired(msg string) *meta.Status {
	return newStatus(410, meta.ReasonExpired, msg)
}

func errTooLargeRV(rv, current int64) *meta.Status {
	st := newStatus(504, meta.ReasonTimeout, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", rv, current))
	st.Details = &meta.StatusDetails{
		Causes:            []meta.StatusCause{{Type: meta.CauseResourceVersionTooLarge, Message: "Too large resource version"}},
		RetryAfterSeconds: 1,
	}
	return st
}

// fieldError is one field-level validation failure, formatted as the real
// server formats field.Error.
type fieldError struct {
	typ   meta.CauseType
	field string
	// value is the bad value as the message shows it (quoted for
	// strings); empty means it is not shown.
	value  string
	detail string
}

func (e fieldError) body() string {
	var s string
	switch e.typ {
	case meta.CauseFieldValueRequired:
		s = "Required value"
	case meta.CauseFieldValueForbidden:
		s = "Forbidden"
	case meta.CauseFieldValueInvalid:
		s = "Invalid value"
	case meta.CauseFieldValueNotSupported:
		s = "Unsupported value"
	case meta.CauseFieldValueDuplicate:
		s = "Duplicate value"
	case meta.CauseFieldValueNotFound:
		s = "Not found"
	case causeFieldValueTooLong:
		s = "Too long"
	default:
		s = string(e.typ)
	}
	if e.value != "" && e.typ != meta.CauseFieldValueRequired && e.typ != meta.CauseFieldValueForbidden {
		s += ": " + e.value
	}
	if e.detail != "" {
		s += ": " + e.detail
	}
	return s
}

func (e fieldError) String() string { return e.field + ": " + e.body() }

func required(field, detail string) fieldError {
	return fieldError{typ: meta.CauseFieldValueRequired, field: field, detail: detail}
}

func forbidden(field, detail string) fieldError {
	return fieldError{typ: meta.CauseFieldValueForbidden, field: field, detail: detail}
}

func invalid(field, value, detail string) fieldError {
	return fieldError{typ: meta.CauseFieldValueInvalid, field: field, value: strconv.Quote(value), detail: detail}
}

// invalidRaw is invalid for a value shown as it is (a number).
func invalidRaw(field, value, detail string) fieldError {
	return fieldError{typ: meta.CauseFieldValueInvalid, field: field, value: value, detail: detail}
}

func notSupported(field, value string, supported ...string) fieldError {
	q := make([]string, len(supported))
	for i, s := range supported {
		q[i] = strconv.Quote(s)
	}
	return fieldError{typ: meta.CauseFieldValueNotSupported, field: field, value: strconv.Quote(value), detail: "supported values: " + strings.Join(q, ", ")}
}

// errInvalid is the 422 for field errors on an object of kind groupKind
// ("Pod", "Deployment.apps").
func errInvalid(group, kind, name string, errs []fieldError) *meta.Status {
	qualified := kind
	if group != "" {
		qualified = kind + "." + group
	}
	var msgs []string
	seen := map[string]bool{}
	causes := make([]meta.StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, meta.StatusCause{Type: e.typ, Message: e.body(), Field: e.field})
		if m := e.String(); !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	msg := fmt.Sprintf("%s %q is invalid", qualified, name)
	switch len(msgs) {
	case 0:
	case 1:
		msg += ": " + msgs[0]
	default:
		msg += ": [" + strings.Join(msgs, ", ") + "]"
	}
	st := newStatus(422, meta.ReasonInvalid, msg)
	st.Details = &meta.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes}
	return st
}

// errInvalidListOptions is the 422 for bad list or watch parameters.
func errInvalidListOptions(errs []fieldError) *meta.Status {
	return errInvalid("meta.k8s.io", "ListOptions", "", errs)
}

// errGenericInvalid is the real server's 422 without details (a JSON patch
// that does not apply).
func errGenericInvalid() *meta.Status {
	st := newStatus(422, meta.ReasonInvalid, "the server rejected our request due to an error in our request")
	st.Details = &meta.StatusDetails{}
	return st
}

// asStatus turns any handler error into the Status to send.
func asStatus(err error) *meta.Status {
	var st *meta.Status
	if errors.As(err, &st) {
		return st
	}
	return errInternal(err)
}
