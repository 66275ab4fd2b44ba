package rest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
)

// This file puts credentials on requests: the bearer token (static, from a
// file, or from an exec plugin), basic auth, the impersonation headers and
// the User-Agent. Credentials never reach a log record or an error message.

// tokenSource yields the bearer token for a request.
type tokenSource interface {
	// token returns the token and its generation, which identifies it to
	// rejected.
	token(ctx context.Context) (tok string, gen uint64, err error)
	// rejected tells the source the server answered 401 to the token of
	// generation gen.
	rejected(gen uint64)
}

// staticToken is a fixed token.
type staticToken string

func (t staticToken) token(context.Context) (string, uint64, error) { return string(t), 0, nil }
func (staticToken) rejected(uint64)                                 {}

// fileToken reads a token from a file, again after refresh has passed or
// after a 401. A file that becomes unreadable after a good read leaves the
// last token in use (and a warning in the log).
type fileToken struct {
	path    string
	refresh time.Duration
	clock   clock.Clock
	log     *slog.Logger

	// mu guards the fields below.
	mu     sync.Mutex
	tok    string
	readAt time.Time
	gen    uint64
	stale  bool
}

func (f *fileToken) token(context.Context) (string, uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	if f.tok != "" && !f.stale && now.Sub(f.readAt) < f.refresh {
		return f.tok, f.gen, nil
	}
	tok, err := readTokenFile(f.path)
	if err != nil {
		if f.tok == "" {
			return "", 0, err
		}
		f.log.Warn("token file unreadable; keeping the previous token", "path", f.path, "err", err)
		f.readAt, f.stale = now, false
		return f.tok, f.gen, nil
	}
	if tok != f.tok {
		f.gen++
		f.tok = tok
	}
	f.readAt, f.stale = now, false
	return f.tok, f.gen, nil
}

func (f *fileToken) rejected(gen uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if gen == f.gen {
		f.stale = true
	}
}

// readTokenFile reads a token file; surrounding whitespace is dropped.
func readTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("token file %s is empty", path)
	}
	return tok, nil
}

// credentials is everything the client adds to each request's headers.
type credentials struct {
	tokens      tokenSource // nil: no bearer token
	username    string
	password    string
	impersonate ImpersonationConfig
	userAgent   string
}

// errCredentials wraps failures to obtain a credential, so they read as
// such and never carry the credential itself.
var errCredentials = errors.New("get credentials")

// apply sets the headers on h and returns the token generation used.
func (c *credentials) apply(ctx context.Context, h http.Header) (gen uint64, hasToken bool, err error) {
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", c.userAgent)
	}
	if c.tokens != nil && h.Get("Authorization") == "" {
		tok, g, err := c.tokens.token(ctx)
		if err != nil {
			return 0, false, fmt.Errorf("%w: %w", errCredentials, err)
		}
		if tok != "" {
			h.Set("Authorization", "Bearer "+tok)
		}
		gen, hasToken = g, true
	} else if c.username != "" && h.Get("Authorization") == "" {
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(c.username+":"+c.password)))
	}
	if imp := c.impersonate; imp.UserName != "" {
		h.Set("Impersonate-User", imp.UserName)
		if imp.UID != "" {
			h.Set("Impersonate-Uid", imp.UID)
		}
		for _, g := range imp.Groups {
			h.Add("Impersonate-Group", g)
		}
		keys := make([]string, 0, len(imp.Extra))
		for k := range imp.Extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range imp.Extra[k] {
				h.Add("Impersonate-Extra-"+escapeExtraKey(k), v)
			}
		}
	}
	return gen, hasToken, nil
}

// observe tells the token source about a 401.
func (c *credentials) observe(status int, gen uint64, hasToken bool) {
	if status == http.StatusUnauthorized && hasToken {
		c.tokens.rejected(gen)
	}
}

// escapeExtraKey percent-encodes the bytes of an extra-attribute key that
// may not appear in a header name, as the API server expects.
func escapeExtraKey(k string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		ch := k[i]
		if isTokenChar(ch) && ch != '%' {
			b.WriteByte(ch)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[ch>>4])
		b.WriteByte(hex[ch&15])
	}
	return b.String()
}

// isTokenChar reports whether ch may appear in an HTTP header name.
func isTokenChar(ch byte) bool {
	switch {
	case 'a' <= ch && ch <= 'z', 'A' <= ch && ch <= 'Z', '0' <= ch && ch <= '9':
		return true
	}
	return strings.IndexByte("!#$&'*+-.^_`|~", ch) >= 0
}

// authRoundTripper adds the credentials to each request and logs it.
type authRoundTripper struct {
	next  http.RoundTripper
	creds *credentials
	log   *slog.Logger
	clock clock.Clock
}

// RoundTrip implements http.RoundTripper.
func (rt *authRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	gen, hasToken, err := rt.creds.apply(req.Context(), req.Header)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	start := rt.clock.Now()
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		rt.log.Debug("request failed", "method", req.Method, "url", req.URL.Redacted(), "err", err)
		return nil, err
	}
	if resp.Uncompressed {
		rt.log.Debug("request", "method", req.Method, "url", req.URL.Redacted(), "status", resp.StatusCode, "proto", resp.Proto, "encoding", "gzip", "elapsed", rt.clock.Now().Sub(start))
	} else {
		rt.log.Debug("request", "method", req.Method, "url", req.URL.Redacted(), "status", resp.StatusCode, "proto", resp.Proto, "elapsed", rt.clock.Now().Sub(start))
	}
	rt.creds.observe(resp.StatusCode, gen, hasToken)
	return resp, nil
}
