package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
// Config.Timeout, when set, bounds the call, as does Request.Timeout.
func (r *Request) Do(ctx context.Context) Result {
	if d := r.c.timeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	resp, err := r.send(ctx, "application/json")
	if err != nil {
		return Result{err: fmt.Errorf("%s: %w", r.describe(""), err)}
	}
	if !isSuccess(resp.StatusCode) {
		return Result{statusCode: resp.StatusCode, header: resp.Header, err: fmt.Errorf("%s: %w", r.describe(""), responseError(resp))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
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
