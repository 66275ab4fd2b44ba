package webview

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
)

// Who may look. A view bound to a loopback address answers only requests
// whose Host is a loopback name, so that a web page elsewhere cannot reach
// it through DNS rebinding; one bound anywhere else needs a token, which
// the page's address carries once (?token=…) and a cookie carries after.
// Every request that changes something (a fault, a slider) must also send
// the header X-Kubecache-Webview, which a page of another origin cannot
// send without a CORS preflight this server never grants.

// tokenCookie carries the token after the first request.
const tokenCookie = "kubecache-webview"

// controlHeader must be present on every POST.
const controlHeader = "X-Kubecache-Webview"

// NewToken returns a random token of 32 hex digits.
func NewToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// isLoopback reports whether addr (host:port or host) is a loopback
// address or the name localhost.
func isLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// presentedToken returns the token a request carries: a bearer token, the
// token parameter, or the cookie.
func presentedToken(r *http.Request) string {
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		return strings.TrimPrefix(h, "Bearer ")
	}
	if t := r.URL.Query().Get("token"); t != "" {
		return t
	}
	if c, err := r.Cookie(tokenCookie); err == nil {
		return c.Value
	}
	return ""
}

// allowed reports whether r may see the view.
func (v *View) allowed(r *http.Request) bool {
	if v.token == "" {
		return isLoopback(r.Host)
	}
	return subtle.ConstantTimeCompare([]byte(presentedToken(r)), []byte(v.token)) == 1
}
