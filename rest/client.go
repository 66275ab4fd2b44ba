package rest

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kubecache/kubecache/clock"
)

// Client talks to one API server. It is built once from a Config by
// NewClient and is safe for concurrent use; each request is started with
// Get, Post, Put, Patch or Delete.
//
// Every request passes the client's rate limiter, carries its credentials
// and User-Agent, and goes over its pooled connections (HTTP/2 when the
// server offers it).
type Client struct {
	base      *url.URL
	http      *http.Client
	transport *http.Transport
	tls       *tls.Config
	proxy     func(*http.Request) (*url.URL, error)
	creds     *credentials
	limiter   *rateLimiter // nil: unlimited
	timeout   time.Duration
	maxFrame  int // watch.DecoderOptions.MaxFrameSize; 0 means the default
	log       *slog.Logger
	clock     clock.Clock

	// bounds on list responses and on responses read whole
	maxListBytes int64
	maxListItems int
	maxResponse  int64
}

// Getter is what a component that only reads needs from a client: a GET
// request builder. *Client implements it; the reflector takes a Getter.
type Getter interface {
	Get() *Request
}

// PatchType is the Content-Type of a PATCH body; it selects the patch
// semantics on the server.
type PatchType string

// The patch types the API server accepts.
const (
	// JSONPatchType is RFC 6902 JSON patch: a list of operations.
	JSONPatchType PatchType = "application/json-patch+json"
	// MergePatchType is RFC 7386 JSON merge patch.
	MergePatchType PatchType = "application/merge-patch+json"
	// StrategicMergePatchType merges lists by key; built-in types only.
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
	// ApplyPatchType is server-side apply; needs a fieldManager parameter.
	ApplyPatchType PatchType = "application/apply-patch+yaml"
)

// NewClient checks cfg and builds a client from it. It reads the CA and
// client certificate files and prepares, but does not run, an exec plugin;
// a missing token file or plugin shows up on the first request.
func NewClient(cfg *Config) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("rest: nil Config")
	}
	if cfg.Host == "" {
		return nil, errors.New("rest: Config.Host is empty")
	}
	host, err := normalizeHost(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("rest: Config.Host: %w", err)
	}
	if cfg.MaxWatchFrameBytes < 0 {
		return nil, fmt.Errorf("rest: Config.MaxWatchFrameBytes is %d; it must be 0 (the default) or positive", cfg.MaxWatchFrameBytes)
	}
	if cfg.MaxListBytes < 0 || cfg.MaxListItems < 0 || cfg.MaxResponseBytes < 0 {
		return nil, errors.New("rest: Config.MaxListBytes, MaxListItems and MaxResponseBytes must be 0 (the default) or positive")
	}
	base, _ := url.Parse(host)
	c := &Client{
		base:         base,
		timeout:      orDefault(cfg.Timeout, DefaultTimeout),
		maxFrame:     cfg.MaxWatchFrameBytes,
		maxListBytes: orDefault(cfg.MaxListBytes, DefaultMaxListBytes),
		maxListItems: orDefault(cfg.MaxListItems, DefaultMaxListItems),
		maxResponse:  orDefault(cfg.MaxResponseBytes, DefaultMaxResponseBytes),
		log:          cfg.Logger,
		clock:        clock.Or(cfg.Clock),
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	creds := &credentials{
		username:    cfg.Username,
		password:    cfg.Password,
		impersonate: cfg.Impersonate,
		userAgent:   cfg.UserAgent,
	}
	if creds.userAgent == "" {
		creds.userAgent = defaultUserAgent()
	}
	hasToken := cfg.BearerToken != "" || cfg.BearerTokenFile != ""
	var exec *execAuth
	switch {
	case hasToken && cfg.Exec != nil:
		return nil, errors.New("rest: a bearer token and an exec plugin are both set; choose one")
	case (hasToken || cfg.Exec != nil) && cfg.Username != "":
		return nil, errors.New("rest: basic auth and a bearer token or exec plugin are both set; choose one")
	case cfg.BearerTokenFile != "":
		refresh := cfg.TokenFileRefresh
		if refresh <= 0 {
			refresh = DefaultTokenFileRefresh
		}
		creds.tokens = &fileToken{path: cfg.BearerTokenFile, refresh: refresh, clock: c.clock, log: c.log}
	case cfg.BearerToken != "":
		creds.tokens = staticToken(cfg.BearerToken)
	case cfg.Exec != nil:
		if exec, err = newExecAuth(cfg, c.clock, c.log); err != nil {
			return nil, fmt.Errorf("rest: %w", err)
		}
		creds.tokens = exec
	}
	c.creds = creds
	if c.tls, err = tlsConfig(cfg, exec); err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	if c.proxy, err = proxyFunc(cfg); err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	// The transport adds HTTP/2 to the ALPN list of the configuration it
	// is given; it gets its own copy so c.tls stays as built.
	c.transport = newHTTPTransport(cfg, c.tls.Clone(), c.proxy)
	if exec != nil {
		exec.certChanged = c.transport.CloseIdleConnections
	}
	var next http.RoundTripper = c.transport
	if !cfg.DisableCompression {
		next = &gzipRoundTripper{next: next}
	}
	c.http = &http.Client{
		Transport: &authRoundTripper{next: next, creds: creds, log: c.log, clock: c.clock},
		// The API server does not redirect; a redirect would carry the
		// credentials elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	switch qps := cfg.QPS; {
	case qps < 0:
	case qps == 0:
		burst := cfg.Burst
		if burst == 0 {
			burst = DefaultBurst
		}
		c.limiter = newRateLimiter(DefaultQPS, burst, c.clock)
	default:
		burst := cfg.Burst
		if burst == 0 {
			burst = max(DefaultBurst, int(qps))
		}
		c.limiter = newRateLimiter(qps, burst, c.clock)
	}
	return c, nil
}

// Host returns the server's base URL.
func (c *Client) Host() string { return c.base.String() }

// HTTPClient returns the client's underlying *http.Client, which adds the
// credentials but not the rate limiting; for requests the builder cannot
// express.
func (c *Client) HTTPClient() *http.Client { return c.http }

// CloseIdleConnections closes pooled connections that carry no request.
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }

// Get starts a GET request.
func (c *Client) Get() *Request { return newRequest(c, http.MethodGet) }

// Post starts a POST (create) request.
func (c *Client) Post() *Request { return newRequest(c, http.MethodPost) }

// Put starts a PUT (update) request.
func (c *Client) Put() *Request { return newRequest(c, http.MethodPut) }

// Delete starts a DELETE request.
func (c *Client) Delete() *Request { return newRequest(c, http.MethodDelete) }

// Patch starts a PATCH request whose body has the patch type pt.
func (c *Client) Patch(pt PatchType) *Request {
	r := newRequest(c, http.MethodPatch)
	if pt == "" {
		r.setErr(errors.New("patch: empty patch type"))
	}
	r.contentType = string(pt)
	return r
}

// hostPrefix is the base URL's path ("" or "/some/prefix").
func (c *Client) hostPrefix() string { return strings.TrimSuffix(c.base.Path, "/") }

// orDefault returns def when v is zero.
func orDefault[N int | int64 | time.Duration](v, def N) N {
	if v == 0 {
		return def
	}
	return v
}
