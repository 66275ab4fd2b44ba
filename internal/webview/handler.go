package webview

import (
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strconv"
)

// static holds the page: one HTML file, one script, one style sheet,
// written by hand, with no build step and nothing fetched from elsewhere.
//
//go:embed static
var static embed.FS

// Handler returns the view's HTTP handler:
//
//	GET  /                   the page
//	GET  /static/…           its script and style sheet
//	GET  /events             the Server-Sent Events stream of frames
//	GET  /api/objects        the store's table: ?filter=substring&limit=N
//	POST /api/fault/ID       press a fault button
//	POST /api/slider/ID      {"value": V}: move a slider
func (v *View) Handler() http.Handler {
	files, _ := fs.Sub(static, "static")
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	mux.HandleFunc("GET /{$}", v.servePage)
	mux.HandleFunc("GET /events", v.serveEvents)
	mux.HandleFunc("GET /api/objects", v.serveObjects)
	mux.HandleFunc("POST /api/fault/{id}", v.serveFault)
	mux.HandleFunc("POST /api/slider/{id}", v.serveSlider)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !v.allowed(r) {
			http.Error(w, "forbidden: open the address the command printed", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get(controlHeader) == "" {
			http.Error(w, "forbidden: missing "+controlHeader+" header", http.StatusForbidden)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
		mux.ServeHTTP(w, r)
	})
}

// servePage serves the page; a request carrying the token as a parameter
// trades it for a cookie and is sent to the bare address.
func (v *View) servePage(w http.ResponseWriter, r *http.Request) {
	if v.token != "" && r.URL.Query().Has("token") {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: v.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	b, err := static.ReadFile("static/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// Bounds of the table.
const (
	defaultRows = 200
	maxRows     = 2000
	maxFilter   = 253
)

// objectsAnswer is /api/objects's body.
type objectsAnswer struct {
	Total int         `json:"total"`
	Rows  []ObjectRow `json:"rows"`
}

// serveObjects answers the table's rows.
func (v *View) serveObjects(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	filter := q.Get("filter")
	if len(filter) > maxFilter {
		http.Error(w, "filter longer than 253 bytes", http.StatusBadRequest)
		return
	}
	limit := defaultRows
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			http.Error(w, "limit must be a non-negative integer", http.StatusBadRequest)
			return
		}
		limit = min(n, maxRows)
	}
	ans := objectsAnswer{Rows: []ObjectRow{}}
	if src := v.source(); src != nil {
		ans.Total, ans.Rows = src.objects(filter, limit)
		if ans.Rows == nil {
			ans.Rows = []ObjectRow{}
		}
	}
	writeJSON(w, http.StatusOK, ans)
}

// serveFault presses a fault button.
func (v *View) serveFault(w http.ResponseWriter, r *http.Request) {
	err := v.controls.press(r.Context(), r.PathValue("id"))
	writeResult(w, err)
}

// maxSliderBody bounds a slider request's body.
const maxSliderBody = 1 << 10

// serveSlider moves a slider.
func (v *View) serveSlider(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Value *float64 `json:"value"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, maxSliderBody))
	if err := dec.Decode(&body); err != nil || body.Value == nil {
		http.Error(w, `want a body {"value": number}`, http.StatusBadRequest)
		return
	}
	writeResult(w, v.controls.set(r.PathValue("id"), *body.Value))
}

// writeResult answers a control request: 200 {"ok":true}, 404 for an
// unknown control, 400 for a value out of range, 500 for a control that
// failed.
func writeResult(w http.ResponseWriter, err error) {
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	case errors.Is(err, errNoSuchControl):
		writeJSON(w, http.StatusNotFound, map[string]any{"error": err.Error()})
	case errors.Is(err, errOutOfRange):
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
	default:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": err.Error()})
	}
}

// writeJSON writes v as the JSON body.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	b, _ := json.Marshal(v)
	_, _ = w.Write(append(b, '\n'))
}
