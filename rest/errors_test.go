package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// statusBody is the JSON Status the API server sends with an error.
func statusBody(code int, reason meta.StatusReason, msg string, details string) string {
	d := ""
	if details != "" {
		d = `,"details":` + details
	}
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q%s,"code":%d}`, msg, reason, d, code)
}

func TestErrorClasses(t *testing.T) {
	type check struct {
		name string
		is   func(error) bool
	}
	tooMany := func(err error) bool { _, ok := IsTooManyRequests(err); return ok }
	all := []check{
		{"NotFound", IsNotFound}, {"AlreadyExists", IsAlreadyExists}, {"Conflict", IsConflict},
		{"Gone", IsGone}, {"Invalid", IsInvalid}, {"Unauthorized", IsUnauthorized},
		{"Forbidden", IsForbidden}, {"TooManyRequests", tooMany}, {"Timeout", IsTimeout},
		{"ResourceVersionTooLarge", IsResourceVersionTooLarge}, {"BadRequest", IsBadRequest},
		{"InternalError", IsInternalError}, {"ServiceUnavailable", IsServiceUnavailable},
	}
	tests := []struct {
		name        string
		code        int
		body        string
		contentType string
		header      map[string]string
		want        []string // the checks that must hold; all others must not
		wantMsg     string
		retryAfter  time.Duration
	}{
		{name: "not found", code: 404, body: statusBody(404, meta.ReasonNotFound, `pods "p" not found`, `{"name":"p","kind":"pods"}`),
			want: []string{"NotFound"}, wantMsg: `404 NotFound: pods "p" not found`},
		{name: "already exists", code: 409, body: statusBody(409, meta.ReasonAlreadyExists, `configmaps "a" already exists`, ""),
			want: []string{"AlreadyExists"}},
		{name: "conflict", code: 409, body: statusBody(409, meta.ReasonConflict, "Operation cannot be fulfilled", ""),
			want: []string{"Conflict"}},
		{name: "expired", code: 410, body: statusBody(410, meta.ReasonExpired, "The resourceVersion for the provided list is too old.", ""),
			want: []string{"Gone"}},
		{name: "gone", code: 410, body: statusBody(410, meta.ReasonGone, "too old", ""), want: []string{"Gone"}},
		{name: "invalid", code: 422, body: statusBody(422, meta.ReasonInvalid, `Pod "p" is invalid`, `{"kind":"Pod","causes":[{"reason":"FieldValueInvalid","field":"spec.x"}]}`),
			want: []string{"Invalid"}},
		{name: "unauthorized", code: 401, body: statusBody(401, meta.ReasonUnauthorized, "Unauthorized", ""), want: []string{"Unauthorized"}},
		{name: "forbidden", code: 403, body: statusBody(403, meta.ReasonForbidden, `User "x" cannot list resource "pods"`, ""), want: []string{"Forbidden"}},
		{name: "bad request", code: 400, body: statusBody(400, meta.ReasonBadRequest, "invalid continue token", ""), want: []string{"BadRequest"}},
		{name: "too large rv", code: 504, header: map[string]string{"Retry-After": "1"},
			body: statusBody(504, meta.ReasonTimeout, "Timeout: Too large resource version: 99, current: 5",
				`{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}`),
			want: []string{"Timeout", "ResourceVersionTooLarge"}, retryAfter: time.Second},
		{name: "server timeout", code: 500, body: statusBody(500, meta.ReasonServerTimeout, "took too long", ""), want: []string{"Timeout"}},
		{name: "internal", code: 500, body: statusBody(500, meta.ReasonInternalError, "boom", ""), want: []string{"InternalError"}},
		{name: "status 429 details only", code: 429, body: statusBody(429, meta.ReasonTooManyRequests, "slow down", `{"retryAfterSeconds":7}`),
			want: []string{"TooManyRequests"}, retryAfter: 7 * time.Second},
		{name: "plain text 429", code: 429, contentType: "text/plain; charset=utf-8",
			header: map[string]string{"Retry-After": "3"}, body: "Too many requests, please try again later.\n",
			want: []string{"TooManyRequests"}, wantMsg: "429 TooManyRequests: Too many requests, please try again later.", retryAfter: 3 * time.Second},
		{name: "html 503 from a proxy", code: 503, contentType: "text/html",
			body: "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>",
			want: []string{"ServiceUnavailable"}, wantMsg: "503 ServiceUnavailable: <html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"},
		{name: "empty 404", code: 404, want: []string{"NotFound"},
			wantMsg: "404 NotFound: the server responded with the status code 404 but did not return more information"},
		{name: "unknown code", code: 418, body: "teapot", want: nil, wantMsg: "418 Unknown: teapot"},
		{name: "json that is not a Status", code: 409, body: `{"kind":"Pod","metadata":{"name":"p"}}`, want: []string{"Conflict"}},
		{name: "status without code", code: 404, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","message":"gone"}`,
			want: []string{"NotFound"}, wantMsg: "404 NotFound: gone"},
		{name: "status without reason", code: 404, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"message":"x"}`,
			want: []string{"NotFound"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ct := tt.contentType
				if ct == "" {
					ct = "application/json"
				}
				w.Header().Set("Content-Type", ct)
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.code)
				fmt.Fprint(w, tt.body)
			}))
			c := newTestClient(t, &Config{Host: srv.URL})
			res := c.Get().Namespace("ns").Resource("pods").Name("p").Do(t.Context())
			err := res.Error()
			require.Error(t, err)
			assert.Equal(t, tt.code, res.StatusCode())
			var se *StatusError
			require.True(t, errors.As(err, &se), "error %T is not a *StatusError", err)
			assert.Equal(t, int32(tt.code), se.Status.Code)
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, se.Error())
				assert.Equal(t, `get pods "p": `+tt.wantMsg, err.Error())
			}
			for _, c := range all {
				want := false
				for _, w := range tt.want {
					want = want || w == c.name
				}
				assert.Equal(t, want, c.is(err), "Is%s(%v)", c.name, err)
			}
			if ra, ok := IsTooManyRequests(err); ok {
				assert.Equal(t, tt.retryAfter, ra)
			}
			assert.Equal(t, tt.retryAfter, SuggestsRetryAfter(err))
			// Classification survives wrapping.
			assert.Equal(t, IsNotFound(err), IsNotFound(fmt.Errorf("outer: %w", err)))
		})
	}
}

func TestErrorClassesOnBareStatus(t *testing.T) {
	// A watch ERROR event carries a *meta.Status; the Is functions accept it.
	st := meta.NewStatus(410, meta.ReasonExpired, "too old resource version: 1 (5)")
	assert.True(t, IsGone(st))
	assert.True(t, IsGone(fmt.Errorf("watch: %w", st)))
	assert.False(t, IsNotFound(st))
	assert.False(t, IsGone(nil))
	assert.False(t, IsGone(errors.New("410 Expired: looks like one but is not")))
	_, ok := IsTooManyRequests(nil)
	assert.False(t, ok)
}

func TestErrorBodyTruncated(t *testing.T) {
	long := strings.Repeat("x", 10000) + "\xff"
	e := decodeStatusError(502, []byte(long), "")
	assert.LessOrEqual(t, len(e.Status.Message), maxErrorMessage+len(" ... (truncated)"))
	assert.True(t, strings.HasSuffix(e.Status.Message, "(truncated)"))
	assert.Equal(t, meta.ReasonUnknown, e.Status.Reason)
}

func TestParseRetryAfter(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": 0, "1": time.Second, " 30 ": 30 * time.Second, "-1": 0, "soon": 0,
		"Wed, 21 Oct 2015 07:28:00 GMT": 0, "999999999": 24 * time.Hour,
	} {
		assert.Equal(t, want, parseRetryAfter(in), "parseRetryAfter(%q)", in)
	}
}

// FuzzStatusError feeds arbitrary error bodies to the Status decoding: it
// must never panic, always keep the HTTP code when the body has none, and
// keep the message bounded when the body is not a Status.
func FuzzStatusError(f *testing.F) {
	f.Add(404, []byte(statusBody(404, meta.ReasonNotFound, "x", `{"name":"p"}`)), "")
	f.Add(429, []byte("Too many requests, please try again later.\n"), "3")
	f.Add(504, []byte(statusBody(504, meta.ReasonTimeout, "t", `{"causes":[{"reason":"ResourceVersionTooLarge"}],"retryAfterSeconds":1}`)), "1")
	f.Add(500, []byte(`{"kind":"Status","code":"x"}`), "")
	f.Add(503, []byte("<html>\x00\xff</html>"), "-5")
	f.Fuzz(func(t *testing.T, code int, body []byte, retryAfter string) {
		if code < 100 || code > 999 {
			code = 500
		}
		e := decodeStatusError(code, body, retryAfter)
		require.NotNil(t, e)
		_ = e.Error()
		assert.NotZero(t, e.Status.Code)
		assert.GreaterOrEqual(t, e.RetryAfter, time.Duration(0))
		var probe meta.Status
		if json.Unmarshal(body, &probe) != nil || probe.Kind != "Status" {
			// Not a Status: the message is the bounded body text.
			assert.LessOrEqual(t, len(e.Status.Message), maxErrorMessage+len(" ... (truncated)")+100)
			assert.Equal(t, reasonForCode(code), e.Status.Reason)
			assert.True(t, utf8.ValidString(e.Status.Message))
		}
		_ = IsGone(e)
		_, _ = IsTooManyRequests(e)
		_ = IsResourceVersionTooLarge(e)
	})
}
