package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// Request is one API call being built: c.Get().Namespace(ns).Resource("pods").
// Name(n).Param(k, v).Do(ctx). The setters return the request so calls
// chain; the first mistake (an empty name, a name with a slash, a body that
// does not encode) is kept and returned by Do, List, Watch or Stream.
//
// A Request is not safe for concurrent use and should be sent once.
//
// The path is /api/v1 for the core group (the default) or /apis/<group>/
// <version>, then namespaces/<ns> when a namespace is set, then the
// resource, name and subresource: /apis/apps/v1/namespaces/default/
// deployments/web/scale.
type Request struct {
	c    *Client
	verb string

	absPath      string // set by AbsPath: replaces the group/version prefix
	group        string
	version      string
	namespace    string
	namespaceSet bool
	resource     string
	name         string
	subresource  string
	params       url.Values
	headers      http.Header
	body         []byte
	hasBody      bool
	contentType  string
	timeout      time.Duration
	transport    WatchTransport
	wire         Wire

	err error
}

func newRequest(c *Client, verb string) *Request {
	return &Request{c: c, verb: verb, version: "v1", params: url.Values{}, headers: http.Header{}}
}

// setErr keeps the first builder error.
func (r *Request) setErr(err error) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
}

// checkSegment rejects a path segment that would change the URL's shape.
func (r *Request) checkSegment(what, s string) {
	switch {
	case s == "":
		r.setErr(fmt.Errorf("%s may not be empty", what))
	case s == "." || s == "..":
		r.setErr(fmt.Errorf("%s may not be %q", what, s))
	case strings.ContainsAny(s, "/%"):
		r.setErr(fmt.Errorf("%s %q may not contain '/' or '%%'", what, s))
	}
}

// Group selects the API group; "" (the default) is the core group, served
// under /api.
func (r *Request) Group(g string) *Request {
	if g != "" {
		r.checkSegment("group", g)
	}
	r.group = g
	return r
}

// Version selects the API version; the default is "v1".
func (r *Request) Version(v string) *Request {
	r.checkSegment("version", v)
	r.version = v
	return r
}

// AbsPath sets the path prefix outright (joined from segments), replacing
// the group and version: AbsPath("/apis") for discovery, or a full path
// for a server's non-resource endpoints. Namespace, Resource and the rest
// still append to it.
func (r *Request) AbsPath(segments ...string) *Request {
	r.absPath = path.Join(append([]string{"/"}, segments...)...)
	return r
}

// Namespace scopes the request to a namespace; "" means all namespaces (or a
// cluster-scoped resource).
func (r *Request) Namespace(ns string) *Request {
	if ns != "" {
		r.checkSegment("namespace", ns)
	}
	r.namespace, r.namespaceSet = ns, ns != ""
	return r
}

// Resource sets the plural resource name ("pods").
func (r *Request) Resource(res string) *Request {
	r.checkSegment("resource", res)
	r.resource = res
	return r
}

// Name names one object.
func (r *Request) Name(n string) *Request {
	r.checkSegment("resource name", n)
	r.name = n
	return r
}

// SubResource appends a subresource ("status", "scale") after the name.
func (r *Request) SubResource(s string) *Request {
	r.checkSegment("subresource", s)
	r.subresource = s
	return r
}

// Param adds a query parameter; repeated keys are all sent.
func (r *Request) Param(k, v string) *Request {
	r.params.Add(k, v)
	return r
}

// SetHeader sets a request header, replacing earlier values (Accept,
// Content-Type...). An Authorization header set here is sent instead of
// the client's own credentials.
func (r *Request) SetHeader(k string, v ...string) *Request {
	r.headers[http.CanonicalHeaderKey(k)] = v
	return r
}

// Timeout bounds the request: it is sent as the server-side ?timeout= and
// applied to the request's context. For Watch use the timeoutSeconds
// parameter instead.
func (r *Request) Timeout(d time.Duration) *Request {
	r.timeout = d
	return r
}

// Body sets the request body: []byte and json.RawMessage are sent as they
// are, an io.Reader is read now, and any other value is encoded as JSON.
func (r *Request) Body(v any) *Request {
	switch b := v.(type) {
	case []byte:
		r.body = b
	case json.RawMessage:
		r.body = b
	case io.Reader:
		data, err := io.ReadAll(b)
		if err != nil {
			r.setErr(fmt.Errorf("read request body: %w", err))
		}
		r.body = data
	default:
		data, err := json.Marshal(v)
		if err != nil {
			r.setErr(fmt.Errorf("encode request body: %w", err))
		}
		r.body = data
	}
	r.hasBody = true
	return r
}

// URL returns the URL the request will be sent to.
func (r *Request) URL() *url.URL {
	p := r.c.hostPrefix()
	switch {
	case r.absPath != "":
		p = path.Join(p, r.absPath)
	case r.group == "":
		p = path.Join(p, "/api", r.version)
	default:
		p = path.Join(p, "/apis", r.group, r.version)
	}
	if r.namespaceSet && r.resource != "" {
		p = path.Join(p, "namespaces", r.namespace)
	}
	p = path.Join(p, r.resource, r.name, r.subresource)
	u := *r.c.base
	u.Path = p
	u.RawPath = ""
	q := url.Values{}
	for k, v := range r.params {
		q[k] = v
	}
	if r.timeout > 0 {
		q.Set("timeout", r.timeout.String())
	}
	u.RawQuery = q.Encode()
	return &u
}

// describe names the request for error messages: "get pods", "list
// deployments.apps".
func (r *Request) describe(op string) string {
	if op == "" {
		op = strings.ToLower(r.verb)
	}
	what := r.resource
	if what == "" {
		what = r.URL().Path
	} else if r.group != "" {
		what += "." + r.group
	}
	if r.subresource != "" {
		what += "/" + r.subresource
	}
	if r.name != "" {
		what += " " + strconv.Quote(r.name)
	}
	return op + " " + what
}

// send waits for the rate limiter, sends the request and returns the
// response for any status; the caller closes the body.
func (r *Request) send(ctx context.Context, accept string) (*http.Response, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.c.limiter != nil {
		if err := r.c.limiter.Wait(ctx); err != nil {
			return nil, fmt.Errorf("rate limiter: %w", err)
		}
	}
	var body io.Reader
	if r.hasBody {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.verb, r.URL().String(), body)
	if err != nil {
		return nil, err
	}
	for k, v := range r.headers {
		req.Header[k] = v
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", accept)
	}
	if r.hasBody && req.Header.Get("Content-Type") == "" {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	return r.c.http.Do(req)
}

// responseError turns a non-2xx response into a *StatusError, reading a
// bounded part of its body. It closes the body.
func responseError(resp *http.Response) *StatusError {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return decodeStatusError(resp.StatusCode, body, resp.Header.Get("Retry-After"))
}

// isSuccess reports a 2xx status.
func isSuccess(code int) bool { return code >= 200 && code < 300 }

// ErrInvalidRequest is wrapped by every mistake made while building a
// request (an empty or malformed path segment, a body that does not
// encode), so errors.Is(err, ErrInvalidRequest) tells them from failures on
// the wire.
var ErrInvalidRequest = errors.New("invalid request")
