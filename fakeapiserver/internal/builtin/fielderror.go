package builtin

import (
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/meta"
)

// FieldError is one field-level failure as the real server reports it in
// a 422 Invalid: the cause type, the field path, the bad value as the
// message shows it ("" when it shows none) and the detail.
type FieldError struct {
	Type   meta.CauseType
	Field  string
	Value  string
	Detail string
}

// invalidValue is an Invalid error for a string value, shown quoted.
func invalidValue(field, value, detail string) FieldError {
	return FieldError{Type: meta.CauseFieldValueInvalid, Field: field, Value: strconv.Quote(value), Detail: detail}
}

// invalidNumber is an Invalid error for a number, shown as it is.
func invalidNumber(field string, n int64, detail string) FieldError {
	return FieldError{Type: meta.CauseFieldValueInvalid, Field: field, Value: strconv.FormatInt(n, 10), Detail: detail}
}

// invalidList is an Invalid error for a list of strings, shown as a JSON
// list.
func invalidList(field string, values []string, detail string) FieldError {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return FieldError{Type: meta.CauseFieldValueInvalid, Field: field, Value: "[" + strings.Join(q, ",") + "]", Detail: detail}
}
