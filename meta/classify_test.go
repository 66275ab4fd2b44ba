package meta_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// predicates names every classification method.
var predicates = map[string]func(*meta.Status) bool{
	"IsBadRequest":              (*meta.Status).IsBadRequest,
	"IsUnauthorized":            (*meta.Status).IsUnauthorized,
	"IsForbidden":               (*meta.Status).IsForbidden,
	"IsNotFound":                (*meta.Status).IsNotFound,
	"IsMethodNotAllowed":        (*meta.Status).IsMethodNotAllowed,
	"IsNotAcceptable":           (*meta.Status).IsNotAcceptable,
	"IsAlreadyExists":           (*meta.Status).IsAlreadyExists,
	"IsConflict":                (*meta.Status).IsConflict,
	"IsGone":                    (*meta.Status).IsGone,
	"IsRequestEntityTooLarge":   (*meta.Status).IsRequestEntityTooLarge,
	"IsUnsupportedMediaType":    (*meta.Status).IsUnsupportedMediaType,
	"IsInvalid":                 (*meta.Status).IsInvalid,
	"IsTooManyRequests":         (*meta.Status).IsTooManyRequests,
	"IsInternalError":           (*meta.Status).IsInternalError,
	"IsServiceUnavailable":      (*meta.Status).IsServiceUnavailable,
	"IsTimeout":                 (*meta.Status).IsTimeout,
	"IsResourceVersionTooLarge": (*meta.Status).IsResourceVersionTooLarge,
}

// checkOnly asserts that exactly the predicates in want hold for s.
func checkOnly(t *testing.T, s *meta.Status, want ...string) {
	t.Helper()
	wanted := map[string]bool{}
	for _, w := range want {
		_, ok := predicates[w]
		require.True(t, ok, "unknown predicate %s", w)
		wanted[w] = true
	}
	for name, p := range predicates {
		assert.Equal(t, wanted[name], p(s), "%s() of %d %q", name, s.Code, s.Reason)
	}
}

// Every reason of the API server's table, as the server sends it.
func TestStatusClassificationByReason(t *testing.T) {
	tests := []struct {
		reason meta.StatusReason
		code   int32
		want   []string
	}{
		{meta.ReasonBadRequest, 400, []string{"IsBadRequest"}},
		{meta.ReasonUnauthorized, 401, []string{"IsUnauthorized"}},
		{meta.ReasonForbidden, 403, []string{"IsForbidden"}},
		{meta.ReasonNotFound, 404, []string{"IsNotFound"}},
		{meta.ReasonMethodNotAllowed, 405, []string{"IsMethodNotAllowed"}},
		{meta.ReasonNotAcceptable, 406, []string{"IsNotAcceptable"}},
		{meta.ReasonAlreadyExists, 409, []string{"IsAlreadyExists"}},
		{meta.ReasonConflict, 409, []string{"IsConflict"}},
		{meta.ReasonGone, 410, []string{"IsGone"}},
		{meta.ReasonExpired, 410, []string{"IsGone"}},
		{meta.ReasonRequestEntityTooLarge, 413, []string{"IsRequestEntityTooLarge"}},
		{meta.ReasonUnsupportedMediaType, 415, []string{"IsUnsupportedMediaType"}},
		{meta.ReasonInvalid, 422, []string{"IsInvalid"}},
		{meta.ReasonTooManyRequests, 429, []string{"IsTooManyRequests"}},
		{meta.ReasonInternalError, 500, []string{"IsInternalError"}},
		{meta.ReasonServerTimeout, 500, []string{"IsTimeout"}},
		{meta.ReasonServiceUnavailable, 503, []string{"IsServiceUnavailable"}},
		{meta.ReasonTimeout, 504, []string{"IsTimeout"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.reason), func(t *testing.T) {
			body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":%q,"code":%d}`, tt.reason, tt.code)
			var s meta.Status
			require.NoError(t, json.Unmarshal([]byte(body), &s))
			checkOnly(t, &s, tt.want...)
			assert.Equal(t, fmt.Sprintf("%d %s: m", tt.code, tt.reason), s.Error())
		})
	}
}

// A Status without a reason, or with one this version does not know, is
// classified by its code.
func TestStatusClassificationByCode(t *testing.T) {
	tests := []struct {
		code int32
		want []string
	}{
		{400, []string{"IsBadRequest"}},
		{401, []string{"IsUnauthorized"}},
		{403, []string{"IsForbidden"}},
		{404, []string{"IsNotFound"}},
		{405, []string{"IsMethodNotAllowed"}},
		{406, []string{"IsNotAcceptable"}},
		{409, []string{"IsConflict"}}, // never AlreadyExists without the reason
		{410, []string{"IsGone"}},
		{413, []string{"IsRequestEntityTooLarge"}},
		{415, []string{"IsUnsupportedMediaType"}},
		{422, []string{"IsInvalid"}},
		{429, []string{"IsTooManyRequests"}},
		{500, []string{"IsInternalError"}}, // never ServerTimeout without the reason
		{503, []string{"IsServiceUnavailable"}},
		{504, []string{"IsTimeout"}},
		{418, nil},
		{0, nil},
	}
	for _, tt := range tests {
		for _, reason := range []meta.StatusReason{meta.ReasonUnknown, "SomeFutureReason"} {
			s := &meta.Status{Code: tt.code, Reason: reason}
			t.Run(fmt.Sprintf("%d/%q", tt.code, reason), func(t *testing.T) { checkOnly(t, s, tt.want...) })
		}
	}
	assert.Equal(t, "500 Unknown: boom", (&meta.Status{Code: 500, Message: "boom"}).Error())
}

func TestStatusGoneVariants(t *testing.T) {
	// The modern watch answer: an ERROR event whose object is this Status.
	var s meta.Status
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 123 (456)","reason":"Expired","code":410}`), &s))
	checkOnly(t, &s, "IsGone")

	// The deprecated reason, and a bare 410.
	checkOnly(t, &meta.Status{Code: 410, Reason: meta.ReasonGone}, "IsGone")
	checkOnly(t, &meta.Status{Code: 410}, "IsGone")

	// An expired continue token whose Status offers a new one.
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{"continue":"next-token"},"status":"Failure","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results.","reason":"Expired","code":410}`), &s))
	assert.True(t, s.IsGone())
	assert.Equal(t, "next-token", s.Continue)
}

func TestStatusResourceVersionTooLarge(t *testing.T) {
	var s meta.Status
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 999, current: 12","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`), &s))
	checkOnly(t, &s, "IsTimeout", "IsResourceVersionTooLarge")
	assert.Equal(t, 1, s.RetryAfterSeconds())

	// A plain 504 is a timeout only.
	checkOnly(t, &meta.Status{Code: 504, Reason: meta.ReasonTimeout}, "IsTimeout")
}

func TestStatusNilSafe(t *testing.T) {
	var s *meta.Status
	for name, p := range predicates {
		assert.False(t, p(s), "%s on nil", name)
	}
	assert.Equal(t, 0, s.RetryAfterSeconds())
}

func TestNewStatus(t *testing.T) {
	s := meta.NewStatus(404, meta.ReasonNotFound, `pods "x" not found`)
	checkOnly(t, s, "IsNotFound")
	out, err := json.Marshal(s)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","code":404}`, string(out))
	var err2 error = s
	assert.EqualError(t, err2, `404 NotFound: pods "x" not found`)
}
