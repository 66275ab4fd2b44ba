package builtin

import (
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
)

// FieldError is one field-level failure as the real server reports it in
// a 422 Invalid (apistatus.Invalid turns a list into the Status).
type FieldError = apistatus.FieldError

// invalidValue is an Invalid error for a string value, shown quoted.
func invalidValue(field, value, detail string) FieldError {
	return apistatus.FieldInvalid(field, value, detail)
}

// invalidNumber is an Invalid error for a number, shown as it is.
func invalidNumber(field string, n int64, detail string) FieldError {
	return apistatus.FieldInvalidRaw(field, strconv.FormatInt(n, 10), detail)
}

// invalidList is an Invalid error for a list of strings, shown as a JSON
// list.
func invalidList(field string, values []string, detail string) FieldError {
	return apistatus.FieldInvalidRaw(field, shownList(values), detail)
}

// shownList renders a list of strings as the real server shows one in a
// message: JSON.
func shownList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// Message is the cause message of a field error as the real server words
// it ("Invalid value: \"x\": detail", "Required value", ...): the error
// without its field path.
func Message(e FieldError) string {
	return strings.TrimPrefix(e.String(), e.Field+": ")
}
