package webview

import (
	"encoding/json"
	"net/http"
	"time"
)

// serveEvents streams frames to one page as Server-Sent Events, one every
// interval, until the page goes away or the view stops serving. Each
// connection samples the recorder on its own cursor; nothing is sampled
// while no page is connected.
func (v *View) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	s := &stream{v: v, cur: v.rec.startSampling(), rates: map[string][]rate{}}
	defer v.rec.stopSampling()
	ctx := r.Context()
	t := time.NewTicker(v.interval)
	defer t.Stop()
	for {
		f := s.next(time.Now())
		b, err := json.Marshal(f)
		if err != nil {
			return
		}
		if _, err := w.Write(append(append([]byte("event: frame\ndata: "), b...), '\n', '\n')); err != nil {
			return
		}
		flusher.Flush()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// stream is one connection's sampling state.
type stream struct {
	v   *View
	cur cursor
	seq uint64
	// rates holds, per handler, its delivered count at the frames of the
	// last rateWindow, oldest first.
	rates map[string][]rate
}

// rate is a handler's delivered count at one frame.
type rate struct {
	delivered uint64
	at        time.Time
}

// rateWindow is how far back a handler's calls per second are counted;
// under minRateWindow of history there is no rate yet.
const (
	rateWindow    = 2 * time.Second
	minRateWindow = 500 * time.Millisecond
)

// next builds the connection's next frame.
func (s *stream) next(now time.Time) *Frame {
	s.seq++
	f := &Frame{Seq: s.seq, Name: s.v.title}
	s.v.rec.sample(&s.cur, f)
	if s.seq == 1 {
		f.Controls = s.v.controls.view()
	}
	src := s.v.source()
	if src == nil {
		return f
	}
	if f.Name == "" {
		f.Name = src.name()
	}
	changed := f.Store.Changed
	f.Store = src.store()
	f.Store.Changed = changed
	for _, h := range src.handlers() {
		hv := HandlerView{
			Name: h.name, Synced: h.synced, Queued: h.backlog.Queued, OldestMs: ms(h.backlog.Oldest),
			Delivered: h.backlog.Delivered, Panics: h.backlog.Panics,
		}
		hist := s.rates[h.name]
		for len(hist) > 1 && now.Sub(hist[1].at) >= rateWindow {
			hist = hist[1:]
		}
		hv.PerSecond = -1
		if len(hist) > 0 && now.Sub(hist[0].at) >= minRateWindow && hv.Delivered >= hist[0].delivered {
			hv.PerSecond = float64(hv.Delivered-hist[0].delivered) / now.Sub(hist[0].at).Seconds()
		}
		s.rates[h.name] = append(hist, rate{delivered: hv.Delivered, at: now})
		f.Handlers = append(f.Handlers, hv)
	}
	return f
}
