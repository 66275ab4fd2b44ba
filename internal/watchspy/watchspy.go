package watchspy

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// Spy is a running proxy. Its URL reaches the target; Upgrades receives the
// Upgrade header of each watch request (one with watch=true), in arrival
// order. Up to 100 are buffered; later ones are dropped rather than block a
// request.
type Spy struct {
	URL      string
	Upgrades <-chan string
}

// New starts a proxy to target, a plain-HTTP server URL, on 127.0.0.1 and
// closes it when the test ends.
func New(t testing.TB, target string) Spy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("watchspy: target %q: %v", target, err)
	}
	if u.Scheme != "http" {
		t.Fatalf("watchspy: target %q: the proxy speaks plain HTTP only", target)
	}
	upgrades := make(chan string, 100)
	proxy := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			select {
			case upgrades <- r.Header.Get("Upgrade"):
			default:
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return Spy{URL: front.URL, Upgrades: upgrades}
}
