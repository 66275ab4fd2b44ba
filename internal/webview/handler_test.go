package webview_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/webview"
)

// do sends one request to h and returns the code and body.
func do(t *testing.T, h http.Handler, method, target, body string, header map[string]string) (int, string, http.Header) {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = "127.0.0.1:7070"
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String(), rec.Header()
}

var control = map[string]string{"X-Kubecache-Webview": "1"}

func TestLoopbackViewAnswersOnlyLoopbackHosts(t *testing.T) {
	v, err := webview.New(webview.Options{})
	require.NoError(t, err)
	h := v.Handler()
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST"} {
		code, body, hdr := do(t, h, "GET", "/", "", map[string]string{"Host": host})
		assert.Equal(t, http.StatusOK, code, "GET / with Host %s", host)
		assert.Contains(t, body, "Reflector state machine")
		assert.Contains(t, hdr.Get("Content-Security-Policy"), "default-src 'self'")
	}
	code, _, _ := do(t, h, "GET", "/static/app.js", "", map[string]string{"Host": "127.0.0.1:1"})
	assert.Equal(t, http.StatusOK, code, "the script")
	// A name that resolves to loopback through someone else's DNS is
	// refused: the page of another site cannot read the view.
	code, _, _ = do(t, h, "GET", "/api/objects", "", map[string]string{"Host": "attacker.example:8080"})
	assert.Equal(t, http.StatusForbidden, code)
}

func TestTokenIsRequiredAndTradedForACookie(t *testing.T) {
	v, err := webview.New(webview.Options{Token: "s3cret"})
	require.NoError(t, err)
	h := v.Handler()
	remote := map[string]string{"Host": "box.example:7070"}

	code, _, _ := do(t, h, "GET", "/", "", remote)
	assert.Equal(t, http.StatusForbidden, code, "no token")
	code, _, _ = do(t, h, "GET", "/?token=wrong", "", remote)
	assert.Equal(t, http.StatusForbidden, code, "a wrong token")

	code, _, hdr := do(t, h, "GET", "/?token=s3cret", "", remote)
	require.Equal(t, http.StatusSeeOther, code, "the token in the address is traded for a cookie")
	assert.Equal(t, "/", hdr.Get("Location"))
	cookie := hdr.Get("Set-Cookie")
	assert.Contains(t, cookie, "kubecache-webview=s3cret")
	assert.Contains(t, cookie, "HttpOnly")
	assert.Contains(t, cookie, "SameSite=Strict")

	code, _, _ = do(t, h, "GET", "/api/objects", "", map[string]string{"Host": "box.example:7070", "Cookie": "kubecache-webview=s3cret"})
	assert.Equal(t, http.StatusOK, code, "the cookie")
	code, _, _ = do(t, h, "GET", "/api/objects", "", map[string]string{"Host": "box.example:7070", "Authorization": "Bearer s3cret"})
	assert.Equal(t, http.StatusOK, code, "a bearer token")
}

func TestControlsNeedTheHeaderAndCheckTheirInput(t *testing.T) {
	var pressed []string
	rate := 2.0
	v, err := webview.New(webview.Options{Controls: webview.Controls{
		Faults: []webview.Fault{
			{ID: "cut", Label: "Cut", Do: func(context.Context) error { pressed = append(pressed, "cut"); return nil }},
			{ID: "broken", Label: "Broken", Do: func(context.Context) error { return errors.New("server gone") }},
		},
		Sliders: []webview.Slider{{ID: "rate", Label: "Rate", Min: 0, Max: 100, Step: 1, Value: 2,
			Set: func(v float64) error { rate = v; return nil }}},
	}})
	require.NoError(t, err)
	h := v.Handler()

	code, _, _ := do(t, h, "POST", "/api/fault/cut", "", nil)
	assert.Equal(t, http.StatusForbidden, code, "a POST without the control header (a form of another site)")
	assert.Empty(t, pressed)

	code, body, _ := do(t, h, "POST", "/api/fault/cut", "", control)
	assert.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, []string{"cut"}, pressed)
	code, body, _ = do(t, h, "POST", "/api/fault/nope", "", control)
	assert.Equal(t, http.StatusNotFound, code, body)
	code, body, _ = do(t, h, "POST", "/api/fault/broken", "", control)
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, "server gone")
	code, _, _ = do(t, h, "GET", "/api/fault/cut", "", control)
	assert.Equal(t, http.StatusMethodNotAllowed, code)

	code, body, _ = do(t, h, "POST", "/api/slider/rate", `{"value": 40}`, control)
	assert.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, 40.0, rate)
	for _, bad := range []string{`{"value": 101}`, `{"value": -1}`, `{}`, `not json`, `{"value": "1"}`, strings.Repeat(" ", 2000) + `{"value": 1}`} {
		code, _, _ = do(t, h, "POST", "/api/slider/rate", bad, control)
		assert.Equal(t, http.StatusBadRequest, code, "slider body %.40q", bad)
	}
	assert.Equal(t, 40.0, rate, "a refused value changes nothing")
	code, _, _ = do(t, h, "POST", "/api/slider/nope", `{"value": 1}`, control)
	assert.Equal(t, http.StatusNotFound, code)
}

func TestNewRefusesInconsistentControls(t *testing.T) {
	do := func(context.Context) error { return nil }
	set := func(float64) error { return nil }
	for name, c := range map[string]webview.Controls{
		"fault without id":   {Faults: []webview.Fault{{Do: do}}},
		"fault without Do":   {Faults: []webview.Fault{{ID: "a"}}},
		"duplicate fault":    {Faults: []webview.Fault{{ID: "a", Do: do}, {ID: "a", Do: do}}},
		"slider without Set": {Sliders: []webview.Slider{{ID: "s", Max: 1}}},
		"empty range":        {Sliders: []webview.Slider{{ID: "s", Min: 1, Max: 1, Value: 1, Set: set}}},
		"value outside":      {Sliders: []webview.Slider{{ID: "s", Min: 0, Max: 1, Value: 2, Set: set}}},
	} {
		_, err := webview.New(webview.Options{Controls: c})
		assert.Error(t, err, name)
	}
}

// stubListener is a listener that claims an address off loopback and
// accepts nothing.
type stubListener struct{ closed chan struct{} }

func (l stubListener) Accept() (net.Conn, error) { <-l.closed; return nil, net.ErrClosed }
func (l stubListener) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}
func (stubListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 80} }

func TestServeRefusesAnAddressOffLoopbackWithoutAToken(t *testing.T) {
	v, err := webview.New(webview.Options{})
	require.NoError(t, err)
	ln := stubListener{closed: make(chan struct{})}
	assert.ErrorIs(t, v.Serve(context.Background(), ln), webview.ErrTokenRequired)
	select {
	case <-ln.closed:
	default:
		t.Error("Serve did not close the listener it refused")
	}

	withToken, err := webview.New(webview.Options{Token: "t"})
	require.NoError(t, err)
	assert.Equal(t, "http://192.0.2.1:80/?token=t", withToken.URL(ln))
}
