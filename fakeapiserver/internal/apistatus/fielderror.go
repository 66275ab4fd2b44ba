package apistatus

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/meta"
)

// CauseFieldValueTooLong is the cause type of a value over its length
// limit.
const CauseFieldValueTooLong meta.CauseType = "FieldValueTooLong"

// CauseFieldValueTooMany is the cause type of a list or map over its
// item limit.
const CauseFieldValueTooMany meta.CauseType = "FieldValueTooMany"

// CauseFieldValueTypeInvalid is the cause type of a value of the wrong
// type (a custom resource's schema validator's words).
const CauseFieldValueTypeInvalid meta.CauseType = "FieldValueTypeInvalid"

// CauseFieldInternalError is the cause type of a check that could not be
// made (the real validators' field.InternalError).
const CauseFieldInternalError meta.CauseType = "InternalError"

// FieldError is one field-level validation failure, formatted as the real
// server formats field.Error.
type FieldError struct {
	Type  meta.CauseType
	Field string
	// Value is the bad value as the message shows it (quoted for
	// strings); empty means it is not shown.
	Value  string
	Detail string
}

func (e FieldError) body() string {
	var s string
	switch e.Type {
	case meta.CauseFieldValueRequired:
		s = "Required value"
	case meta.CauseFieldValueForbidden:
		s = "Forbidden"
	case meta.CauseFieldValueInvalid, CauseFieldValueTypeInvalid:
		s = "Invalid value"
	case meta.CauseFieldValueNotSupported:
		s = "Unsupported value"
	case meta.CauseFieldValueDuplicate:
		s = "Duplicate value"
	case meta.CauseFieldValueNotFound:
		s = "Not found"
	case CauseFieldValueTooLong:
		s = "Too long"
	case CauseFieldValueTooMany:
		s = "Too many"
	case CauseFieldInternalError:
		s = "Internal error"
	default:
		s = string(e.Type)
	}
	if e.Value != "" && e.Type != meta.CauseFieldValueRequired && e.Type != meta.CauseFieldValueForbidden {
		s += ": " + e.Value
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// String renders the error as the real server's messages do:
// "field: Reason: value: detail".
func (e FieldError) String() string { return e.Field + ": " + e.body() }

// FieldRequired is a missing value.
func FieldRequired(field, detail string) FieldError {
	return FieldError{Type: meta.CauseFieldValueRequired, Field: field, Detail: detail}
}

// FieldForbidden is a value that may not be set.
func FieldForbidden(field, detail string) FieldError {
	return FieldError{Type: meta.CauseFieldValueForbidden, Field: field, Detail: detail}
}

// FieldInvalid is a bad string value (shown quoted).
func FieldInvalid(field, value, detail string) FieldError {
	return FieldError{Type: meta.CauseFieldValueInvalid, Field: field, Value: strconv.Quote(value), Detail: detail}
}

// FieldInvalidRaw is invalid for a value shown as it is (a number).
func FieldInvalidRaw(field, value, detail string) FieldError {
	return FieldError{Type: meta.CauseFieldValueInvalid, Field: field, Value: value, Detail: detail}
}

// FieldNotSupported is a value outside the supported ones, which the
// message lists.
func FieldNotSupported(field, value string, supported ...string) FieldError {
	q := make([]string, len(supported))
	for i, s := range supported {
		q[i] = strconv.Quote(s)
	}
	return FieldError{Type: meta.CauseFieldValueNotSupported, Field: field, Value: strconv.Quote(value), Detail: "supported values: " + strings.Join(q, ", ")}
}

// Invalid is the 422 for field errors on an object of kind groupKind
// ("Pod", "Deployment.apps"). An error equal to an earlier one (type,
// field and message) is left out, as the real server leaves it out.
func Invalid(group, kind, name string, errs []FieldError) *meta.Status {
	qualified := kind
	if group != "" {
		qualified = kind + "." + group
	}
	// A validator that checks one rule twice reports the same error
	// twice; the real server answers with it once, in the message and
	// in the causes.
	var msgs []string
	seen := map[meta.StatusCause]bool{}
	causes := make([]meta.StatusCause, 0, len(errs))
	for _, e := range errs {
		c := meta.StatusCause{Type: e.Type, Message: e.body(), Field: e.Field}
		if seen[c] {
			continue
		}
		seen[c] = true
		causes = append(causes, c)
		msgs = append(msgs, e.String())
	}
	msg := fmt.Sprintf("%s %q is invalid", qualified, name)
	switch len(msgs) {
	case 0:
	case 1:
		msg += ": " + msgs[0]
	default:
		msg += ": [" + strings.Join(msgs, ", ") + "]"
	}
	st := New(422, meta.ReasonInvalid, msg)
	st.Details = &meta.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes}
	return st
}

// InvalidListOptions is the 422 for bad list or watch parameters.
func InvalidListOptions(errs []FieldError) *meta.Status {
	return Invalid("meta.k8s.io", "ListOptions", "", errs)
}
