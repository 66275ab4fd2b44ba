package webview_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubecache/kubecache/internal/webview"
)

// FuzzHandler sends the view's handler arbitrary requests — method, path
// with query, body, Host, token cookie and control header — and checks
// that each gets a well-formed answer (never a panic), that nothing
// without the control header or from a foreign Host reaches a control,
// and that a slider only ever holds a value in its range.
func FuzzHandler(f *testing.F) {
	for _, seed := range []struct {
		method, target, body, host string
		control                    bool
	}{
		{"GET", "/", "", "127.0.0.1:1", false},
		{"GET", "/api/objects?filter=a&limit=3", "", "localhost:1", false},
		{"GET", "/api/objects?limit=-1", "", "127.0.0.1:1", false},
		{"POST", "/api/fault/cut", "", "127.0.0.1:1", true},
		{"POST", "/api/slider/rate", `{"value": 50}`, "[::1]:1", true},
		{"POST", "/api/slider/rate", `{"value": 1e400}`, "127.0.0.1:1", true},
		{"POST", "/api/slider/rate", `{"value": NaN}`, "127.0.0.1:1", true},
		{"POST", "/api/fault/%2e%2e", "", "127.0.0.1:1", true},
		{"GET", "/static/../view.go", "", "127.0.0.1:1", false},
		{"POST", "/api/fault/cut", "", "evil.example", true},
	} {
		f.Add(seed.method, seed.target, seed.body, seed.host, seed.control)
	}
	f.Fuzz(func(t *testing.T, method, target, body, host string, control bool) {
		if !strings.HasPrefix(target, "/") {
			target = "/" + target
		}
		pressed := 0
		var rate float64
		v, err := webview.New(webview.Options{Controls: webview.Controls{
			Faults: []webview.Fault{{ID: "cut", Label: "Cut", Do: func(context.Context) error { pressed++; return nil }}},
			Sliders: []webview.Slider{{ID: "rate", Label: "Rate", Min: 0, Max: 100, Step: 1,
				Set: func(x float64) error { rate = x; return nil }}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(method, "http://x"+target, strings.NewReader(body))
		if err != nil {
			return // not a request a client could send
		}
		req.Host = host
		if control {
			req.Header.Set("X-Kubecache-Webview", "1")
		}
		rec := httptest.NewRecorder()
		v.Handler().ServeHTTP(rec, req)
		if rec.Code < 200 || rec.Code > 599 {
			t.Fatalf("%s %s: status %d", method, target, rec.Code)
		}
		if pressed > 0 && (!control || method != http.MethodPost) {
			t.Fatalf("%s %s (control header %v) pressed a fault", method, target, control)
		}
		if rate < 0 || rate > 100 {
			t.Fatalf("slider set to %v, outside [0, 100]", rate)
		}
	})
}
