package strategicpatch

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Error is a strategic merge patch that cannot be applied. Code is the
// HTTP status the real API server answers such a patch with, and Msg is
// its message, in the same words:
//
//   - 400 for a patch that is not a JSON object and for malformed
//     $retainKeys, $setElementOrder or $deleteFromPrimitiveList directives;
//   - 422 for lists of lists;
//   - 500 for the rest (an unknown $patch value, an item without its
//     merge key, mixed item types, an order that contradicts
//     $setElementOrder): the real server reports these as internal errors,
//     though the patch is at fault.
type Error struct {
	Code int
	Msg  string
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

func badRequest(msg string) *Error { return &Error{Code: http.StatusBadRequest, Msg: msg} }

func internal(msg string) *Error { return &Error{Code: http.StatusInternalServerError, Msg: msg} }

// The directive format errors, worded as the server words them.
var (
	errRetainKeysFormat      = badRequest("invalid patch format of retainKeys")
	errSetElementOrderFormat = badRequest("invalid patch format of setElementOrder list")
	errPrimitiveListFormat   = badRequest("invalid patch format of primitive list")
	errListOfLists           = &Error{Code: http.StatusUnprocessableEntity, Msg: "lists of lists are not supported"}
)

// goType names the Go type the server's decoder gives a JSON value, for
// messages that quote it.
func goType(v *jsonv.Value) string {
	if v == nil {
		return "<nil>"
	}
	switch v.Kind {
	case jsonv.Object:
		return "map[string]interface {}"
	case jsonv.Array:
		return "[]interface {}"
	case jsonv.String:
		return "string"
	case jsonv.Bool:
		return "bool"
	case jsonv.Number:
		if isIntegral(v.Str) {
			return "int64"
		}
		return "float64"
	}
	return "<nil>"
}

func errBadArgType(want string, got *jsonv.Value) *Error {
	return internal("expected a " + want + ", but received a " + goType(got))
}

func errNoMergeKey(item jsonv.Value, key string) *Error {
	return internal("map: " + goFormat(item) + " does not contain declared merge key: " + key)
}

func errBadPatchType(directive jsonv.Value, m jsonv.Value) *Error {
	return internal("unknown patch type: " + goFormat(directive) + " in map: " + goFormat(m))
}

// goFormat renders v as Go's %v renders the decoded value (map keys
// sorted), so that messages quote values as the real server does.
func goFormat(v jsonv.Value) string {
	var b strings.Builder
	writeGo(&b, v)
	return b.String()
}

func writeGo(b *strings.Builder, v jsonv.Value) {
	switch v.Kind {
	case jsonv.Null:
		b.WriteString("<nil>")
	case jsonv.Bool:
		b.WriteString(strconv.FormatBool(v.B))
	case jsonv.Number:
		if isIntegral(v.Str) {
			b.WriteString(v.Str)
		} else if f, err := strconv.ParseFloat(v.Str, 64); err == nil {
			if f == float64(int64(f)) && f < 1e21 && f > -1e21 {
				b.WriteString(strconv.FormatInt(int64(f), 10))
			} else {
				b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
			}
		} else {
			b.WriteString(v.Str)
		}
	case jsonv.String:
		b.WriteString(v.Str)
	case jsonv.Array:
		b.WriteByte('[')
		for i := range v.Arr {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeGo(b, v.Arr[i])
		}
		b.WriteByte(']')
	case jsonv.Object:
		members := slices.Clone(v.Obj)
		slices.SortFunc(members, func(x, y jsonv.Member) int { return strings.Compare(x.Key, y.Key) })
		b.WriteString("map[")
		for i, m := range members {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(m.Key)
			b.WriteByte(':')
			writeGo(b, m.Value)
		}
		b.WriteByte(']')
	}
}

func isIntegral(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return true
}
