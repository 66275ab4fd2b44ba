package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Result is the outcome of Do: the response body and status, or the error.
// A non-2xx response is an error (a *StatusError); so is a failure to send.
type Result struct {
	body       []byte
	statusCode int
	header     http.Header
	err        error
}

// Do sends the request and reads the whole response. Use List for large
// collections, Watch for watches and Stream for raw bodies.
//
// Config.Timeout (32 s unless set) bounds the call, as does
// Request.Timeout; a body larger than Config.MaxResponseBytes fails it with
// ErrResponseTooLarge.
func (r *Request) Do(ctx context.Context) Result {
	if d := r.c.timeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, fmt.Errorf("no answer within %v (Config.Timeout): %w", d, context.DeadlineExceeded))
		defer cancel()
	}
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	resp, err := r.send(ctx, "application/json")
	if err != nil {
		return Result{err: fmt.Errorf("%s: %w", r.describe(""), timeoutCause(ctx, err))}
	}
	if !isSuccess(resp.StatusCode) {
		return Result{statusCode: resp.StatusCode, header: resp.Header, err: fmt.Errorf("%s: %w", r.describe(""), responseError(resp))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(&boundedBody{r: resp.Body, limit: r.c.maxResponse, what: "Config.MaxResponseBytes"})
	if err != nil {
		err = timeoutCause(ctx, err)
		return Result{statusCode: resp.StatusCode, header: resp.Header, err: fmt.Errorf("%s: read response: %w", r.describe(""), err)}
	}
	return Result{body: body, statusCode: resp.StatusCode, header: resp.Header}
}

// Error returns the request's error: nil for a 2xx response, a
// *StatusError for any other status, or the transport failure.
func (res Result) Error() error { return res.err }

// StatusCode returns the HTTP status, or 0 when no response arrived.
func (res Result) StatusCode() int { return res.statusCode }

// Header returns the response headers (nil when no response arrived).
func (res Result) Header() http.Header { return res.header }

// Warnings returns the texts of the response's Warning headers (code 299),
// which the server adds for deprecated APIs and, with fieldValidation=Warn,
// unknown fields.
func (res Result) Warnings() []string {
	var out []string
	for _, v := range res.header.Values("Warning") {
		if text, ok := parseWarning(v); ok {
			out = append(out, text)
		}
	}
	return out
}

// parseWarning reads `299 - "text"` (RFC 7234 warn-code, agent, quoted
// text), returning the unquoted text.
func parseWarning(v string) (string, bool) {
	code, rest, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || code != "299" {
		return "", false
	}
	_, quoted, ok := strings.Cut(strings.TrimSpace(rest), " ")
	if !ok {
		return "", false
	}
	quoted = strings.TrimSpace(quoted)
	text, err := strconv.Unquote(quoted)
	if err != nil {
		// A trailing warn-date follows the text in some servers' headers.
		if end := strings.LastIndex(quoted, `" `); end > 0 {
			if text, err = strconv.Unquote(quoted[:end+1]); err == nil {
				return text, true
			}
		}
		return "", false
	}
	return text, true
}

// Raw returns the response body, and the request's error if it failed.
func (res Result) Raw() ([]byte, error) { return res.body, res.err }

// Into decodes the JSON response body into v. It returns the request's
// error if it failed, and an error if the body is empty or does not decode.
func (res Result) Into(v any) error {
	if res.err != nil {
		return res.err
	}
	if len(res.body) == 0 {
		return errors.New("decode response: empty body")
	}
	if err := json.Unmarshal(res.body, v); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}
