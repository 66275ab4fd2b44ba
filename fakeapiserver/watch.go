package fakeapiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/auth"
	"github.com/kubecache/kubecache/fakeapiserver/internal/metrics"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// WATCH: register with the store (with a snapshot for initial events, or
// a backlog of changes to replay), then stream events until the deadline,
// the client going away, the server closing or the watcher being dropped.
//
// The stream is flushed when the watcher's queue is empty, not after every
// event, so one chunk may hold many events, as on the real server.

// eventSink is where a watch writes: a chunked HTTP body or a websocket.
type eventSink interface {
	// frame writes one event (buffered until flush for HTTP).
	frame(typ watch.EventType, object []byte) error
	flush() error
	// setWriteDeadline bounds the next writes; abort interrupts one in
	// progress from another goroutine.
	setWriteDeadline(t time.Time)
	abort()
	// halfFrame writes the first half of a frame, flushes and breaks the
	// connection (fault injection).
	halfFrame(typ watch.EventType, object []byte)
	// cut breaks the connection without finishing the stream.
	cut()
	// end finishes the stream normally (deadline reached).
	end()
	// begin sends the response's status and headers. The watch calls it
	// once it is registered with the store, as the real server answers
	// only once its watcher exists: a client that has the headers knows
	// that every write it makes from then on reaches the stream.
	begin()
}

// watchRequest is a parsed, validated watch.
type watchRequest struct {
	res       *registry.Resource
	version   string
	namespace string
	opts      request.ListOptions
	format    request.Format
	timeout   time.Duration
	client    string
	// table renders events as request.FormatTable.
	table *tableRenderer
	// protobuf: events go out as length-prefixed protobuf WatchEvents
	// (binary messages on a websocket).
	protobuf bool
	// gzip: the client accepts a gzip-encoded body (a streaming list
	// gets one).
	gzip bool
}

// watchClient names who opened a watch: the authenticated user, or the
// remote address when authentication is off.
func watchClient(r *http.Request) string {
	if u, ok := auth.UserFrom(r.Context()); ok && u.Name != "" && u.Name != "system:admin" {
		return "user:" + u.Name
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// handleWatch serves a watch over chunked HTTP (or a websocket upgrade).
func (s *Server) handleWatch(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	wr, err := s.parseWatch(r, info, res)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	wr.client = watchClient(r)
	if max := s.opts.MaxWatchersPerUser; max > 0 {
		if n, _ := s.store.CountWatchers(func(w *storage.Watcher) bool { return w.Info.Client == wr.client }); n >= max {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte("Too many requests, please try again later.\n"))
			return
		}
	}
	if request.IsWebsocketUpgrade(r) {
		s.serveWebsocketWatch(w, r, wr)
		return
	}
	o := wr.opts
	gzipped := wr.gzip && o.SendInitialEvents != nil && *o.SendInitialEvents && o.AllowBookmarks
	sink := newHTTPSink(w, wr.protobuf, gzipped)
	if sink == nil {
		request.WriteError(w, r, errors.New("streaming is not supported by this connection"))
		return
	}
	h := w.Header()
	if gzipped {
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
	}
	h.Set("Content-Type", request.MediaJSON)
	if wr.protobuf {
		h.Set("Content-Type", request.MediaProtobuf+";stream=watch")
	}
	h.Set("Cache-Control", "no-cache, private")
	h.Set("X-Content-Type-Options", "nosniff")
	s.runWatch(r.Context(), wr, sink)
}

// parseWatch validates a watch request before the response starts: every
// error here is an immediate non-200 answer.
func (s *Server) parseWatch(r *http.Request, info request.Info, res *registry.Resource) (watchRequest, error) {
	n, err := request.NegotiateRead(r, true)
	if err != nil {
		return watchRequest{}, err
	}
	var tr *tableRenderer
	if n.Format == request.FormatTable {
		tr = s.newTableRenderer(res, info.Version, n)
	}
	opts, err := request.ParseListOptions(r, res, info.Name, true, !s.opts.DisableWatchList)
	if err == nil {
		err = s.shardOption(r, &opts)
	}
	if err != nil {
		return watchRequest{}, err
	}
	if _, err := request.ParseRV(opts.RV); err != nil {
		// The real server lets this storage error through as a 500
		// without a reason.
		return watchRequest{}, apistatus.New(500, meta.ReasonUnknown, apistatus.FieldInvalid("resourceVersion", opts.RV, err.Error()).String())
	}
	timeout := time.Duration(float64(s.opts.MinRequestTimeout) * (1 + s.jitter()))
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	return watchRequest{res: res, version: info.Version, namespace: info.Namespace, opts: opts, format: n.Format, timeout: timeout, table: tr,
		protobuf: n.Protobuf && tr == nil && !res.Custom, gzip: n.Gzip}, nil
}

// startWatch works out where the watch begins and registers it with the
// store. ok is false when the watch has already been answered (an ERROR
// event for a compacted resourceVersion, an end, or a cut).
func (s *Server) startWatch(ctx context.Context, wr watchRequest, sink eventSink) (reg storage.Registration, initial, ok bool) {
	table := wr.res.StorageKey()
	o := wr.opts
	rv, _ := request.ParseRV(o.RV)
	initial = o.SendInitialEvents != nil && *o.SendInitialEvents
	// With the WatchList gate off, a watch from "" or "0" still starts
	// with ADDED for every object (the legacy behaviour), without the
	// bookmark that ends a streaming list.
	legacyInitial := o.SendInitialEvents == nil && rv == 0
	initial = initial || legacyInitial
	start := storage.WatchStart{Initial: initial, From: rv}
	if o.SendInitialEvents != nil && !initial && rv == 0 {
		start.From = s.store.ResourceVersion()
	}
	if initial && rv > 0 {
		if err := s.waitForRV(ctx, rv); err != nil {
			s.sendError(sink, apistatus.From(err), wr.protobuf)
			return storage.Registration{}, false, false
		}
	}
	info := storage.WatchInfo{Group: wr.res.Group, Resource: wr.res.Name, Namespace: wr.namespace, Client: wr.client}
	var err error
	reg, err = s.store.Register(table, start, s.opts.WatchQueueLength, info)
	switch {
	case errors.Is(err, storage.ErrCompacted):
		msg := fmt.Sprintf("too old resource version: %d (%d)", rv, s.store.OldestWatchRV(table))
		if wr.res.NoWatchCache {
			msg = "The resourceVersion for the provided watch is too old."
		}
		s.sendError(sink, apistatus.Expired(msg), wr.protobuf)
		return storage.Registration{}, false, false
	case errors.Is(err, storage.ErrResourceGone):
		sink.end()
		return storage.Registration{}, false, false
	case err != nil:
		sink.cut()
		return storage.Registration{}, false, false
	}
	return reg, initial, true
}

// runWatch streams events to sink until the watch ends.
func (s *Server) runWatch(ctx context.Context, wr watchRequest, sink eventSink) {
	reg, initial, ok := s.startWatch(ctx, wr, sink)
	if !ok {
		return
	}
	o := wr.opts
	defer s.store.Unregister(reg.Watcher)
	reg.Watcher.SetAbort(sink.abort)
	defer reg.Watcher.SetAbort(nil)
	sink.begin()

	st := &watchStream{s: s, wr: wr, sink: sink, w: reg.Watcher, lastRV: reg.SnapshotRV, minRV: reg.SnapshotRV, apiVer: request.GV(wr.res.Group, wr.version)}
	defer st.reportEvents()
	deadline, stopDeadline := s.clock.NewTimer(wr.timeout)
	defer stopDeadline()
	var bookmarkC, lastBookmarkC <-chan time.Time
	stopBookmark := func() bool { return false }
	defer func() { stopBookmark() }()
	if o.AllowBookmarks {
		bookmarkC, stopBookmark = s.clock.NewTimer(s.opts.BookmarkInterval)
		if wr.timeout > s.opts.BookmarkBeforeDeadline {
			var stopLast func() bool
			lastBookmarkC, stopLast = s.clock.NewTimer(wr.timeout - s.opts.BookmarkBeforeDeadline)
			defer stopLast()
		}
	}

	if initial {
		if err := st.sendInitial(reg); err != nil {
			return
		}
	}
	for _, c := range reg.Backlog {
		if err := st.send(c); err != nil {
			return
		}
	}
	var pacer flushPacer
	defer pacer.stop()
	for {
		if len(reg.Watcher.Queue) == 0 {
			if st.bookmarkDue {
				if err := st.bookmark(); err != nil {
					return
				}
			}
			if st.pending {
				if now := time.Now(); pacer.hold(now) {
					pacer.arm(now)
				} else if err := st.flushPaced(&pacer, now); err != nil {
					return
				}
			}
		}
		stall := reg.Watcher.StallChan()
		queue := reg.Watcher.Queue
		if stall != nil {
			queue = nil
		}
		select {
		case c := <-queue:
			if err := st.send(c); err != nil {
				return
			}
			// Take everything already queued before deciding on a flush,
			// unless a stall was injected meanwhile: a stalled watch must
			// leave its queue to fill.
			for len(queue) > 0 && reg.Watcher.StallChan() == nil {
				if err := st.send(<-queue); err != nil {
					return
				}
			}
		case <-pacer.c():
			if err := st.flushPaced(&pacer, time.Now()); err != nil {
				return
			}
		case <-reg.Watcher.Done:
			if reg.Watcher.Reason() == storage.StopResourceGone {
				// The last changes (the deletions) are still queued.
				for len(reg.Watcher.Queue) > 0 {
					if err := st.send(<-reg.Watcher.Queue); err != nil {
						return
					}
				}
			}
			st.stopped()
			return
		case <-deadline:
			_ = st.flush()
			sink.end()
			return
		case <-bookmarkC:
			st.bookmarkDue = true
			bookmarkC, stopBookmark = s.clock.NewTimer(s.opts.BookmarkInterval)
		case <-lastBookmarkC:
			st.bookmarkDue = true
			lastBookmarkC = nil
		case <-ctx.Done():
			return
		}
	}
}

// sendError ends a watch that has started with one ERROR event: the real
// server's answer to a too-old resourceVersion once the stream began.
func (s *Server) sendError(sink eventSink, st *meta.Status, protobuf bool) {
	data := request.Marshal(st)
	if protobuf {
		data = request.ProtobufOrJSON(data)
	}
	if sink.frame(watch.Error, data) == nil {
		_ = sink.flush()
	}
	sink.end()
}

// watchStream is the state of one running watch.
type watchStream struct {
	s    *Server
	wr   watchRequest
	sink eventSink
	w    *storage.Watcher
	// apiVer is the served apiVersion of the watched resource.
	apiVer string
	// lastRV is the newest resourceVersion the client has been told of;
	// minRV drops queued changes the client already has.
	lastRV, minRV int64
	bookmarkDue   bool
	// pending: frames are buffered since the last flush; batch counts
	// them.
	pending bool
	batch   int
	// deadline is the write deadline last set on the sink.
	deadline time.Time
	// bookmarked: a bookmark at lastRV went out already.
	bookmarked bool
	// tableColumnsSent: with a Table watch, the first event (the only
	// one with columnDefinitions) went out.
	tableColumnsSent bool
	// sent counts the events written since the metrics were last told.
	sent metrics.WatchSizes
}

// tableEvent renders obj as a watch event's one-row Table.
func (st *watchStream) tableEvent(obj *storage.Object) ([]byte, error) {
	data, err := st.wr.table.render([]*storage.Object{obj}, rvMeta(strconv.FormatInt(obj.RV, 10)), st.s.clock.Now(), st.tableColumnsSent)
	if err != nil {
		return nil, err
	}
	st.tableColumnsSent = true
	return data, nil
}

func (st *watchStream) apiVersion() string { return st.apiVer }

func (st *watchStream) write(typ watch.EventType, data []byte) error {
	if !st.pending {
		// The write deadline is moved only once it is less than half a
		// timeout away: every write still has at least half of
		// WatchWriteTimeout, without a deadline update per batch. A
		// stopped watcher always gets a fresh one: the store interrupted
		// it by moving the deadline into the past, and what is still
		// queued (a removed resource's deletions) must go out.
		timeout := st.s.opts.WatchWriteTimeout
		if now := time.Now(); st.deadline.Sub(now) < timeout/2 || st.w.IsStopped() {
			st.deadline = now.Add(timeout)
			st.sink.setWriteDeadline(st.deadline)
		}
		st.pending = true
	}
	st.batch++
	if st.wr.protobuf && !bytes.HasPrefix(data, kubeproto.Magic) {
		// Initial events and bookmarks are encoded here; changes come
		// encoded once per encoding (storage.Change.Encoded).
		data = request.ProtobufOrJSON(data)
	}
	st.sent.Add(eventSize(typ, data, st.wr.protobuf))
	return st.sink.frame(typ, data)
}

// eventSize is the size of a watch event as the real server's
// apiserver_watch_events_sizes measures it: the encoded event, without
// the length prefix of a protobuf frame.
func eventSize(typ watch.EventType, object []byte, protobuf bool) int {
	if protobuf {
		var buf [32]byte
		h := kubeproto.AppendWatchFrameHeader(buf[:0], string(typ), len(object))
		return int(binary.BigEndian.Uint32(h))
	}
	return len(`{"type":"","object":}`+"\n") + len(typ) + len(object)
}

// reportEvents adds the events written since the last report to the
// server's metrics.
func (st *watchStream) reportEvents() {
	if st.sent.Count() > 0 {
		st.s.metrics.WatchEvents(st.wr.res.Group, st.wr.version, st.wr.res.Name, &st.sent)
	}
}

func (st *watchStream) flush() error {
	st.reportEvents()
	if !st.pending {
		return nil
	}
	st.pending, st.batch = false, 0
	return st.sink.flush()
}

// flushPaced flushes and tells the pacer how many frames went out.
func (st *watchStream) flushPaced(p *flushPacer, now time.Time) error {
	batch := st.batch
	err := st.flush()
	p.flushed(now, batch)
	return err
}

// sendInitial writes ADDED for every matching object of the snapshot in
// key order, then the initial-events-end bookmark when bookmarks are on.
func (st *watchStream) sendInitial(reg storage.Registration) error {
	o := st.wr.opts
	lo, hi := "", ""
	if st.wr.namespace != "" && st.wr.res.Namespaced {
		lo, hi = st.wr.namespace+"/", st.wr.namespace+"0"
	}
	var err error
	reg.Snapshot.Ascend(lo, func(key string, obj *storage.Object) bool {
		if hi != "" && key >= hi {
			return false
		}
		if !o.Matches(obj, st.wr.namespace) {
			return true
		}
		data := request.EncodeObject(obj, st.wr.format, st.apiVersion())
		if st.wr.table != nil {
			if data, err = st.tableEvent(obj); err != nil {
				return false
			}
		}
		err = st.write(watch.Added, data)
		return err == nil
	})
	if err != nil {
		return err
	}
	if o.AllowBookmarks && o.SendInitialEvents != nil && !st.s.opts.WithholdInitialEventsEnd {
		if err := st.write(watch.Bookmark, st.bookmarkObject(reg.SnapshotRV, true)); err != nil {
			return err
		}
	}
	return st.flush()
}

// send writes the event a change means for this watch, if any.
func (st *watchStream) send(c *storage.Change) error {
	if c.RV <= st.minRV {
		return nil
	}
	o := st.wr.opts
	ns := st.wr.namespace
	key, prev := request.EventEncoding{Format: st.wr.format, APIVersion: st.apiVersion(), Protobuf: st.wr.protobuf}, false
	var typ watch.EventType
	switch c.Typ {
	case watch.Added:
		if !o.Matches(c.Obj, ns) {
			return nil
		}
		typ = watch.Added
	case watch.Modified:
		cur, old := o.Matches(c.Obj, ns), o.Matches(c.Prev, ns)
		switch {
		case cur && old:
			typ = watch.Modified
		case cur:
			typ = watch.Added
		case old:
			typ, prev = watch.Deleted, true
		default:
			return nil
		}
	case watch.Deleted:
		if !o.Matches(c.Obj, ns) {
			return nil
		}
		typ = watch.Deleted
	}
	st.lastRV, st.bookmarked = c.RV, false
	if st.w.TakeCorrupt() {
		st.s.log.Info("fault", "fault", "corrupt watch frame", "resource", st.wr.res.GroupResource())
		return st.sink.frame(typ, []byte("{not json}"))
	}
	if st.wr.table != nil {
		obj := c.Obj
		if prev {
			obj = c.Prev
			if p, err := c.Prev.WithResourceVersion(c.RV); err == nil {
				obj = p
			}
		}
		data, err := st.tableEvent(obj)
		if err != nil {
			return err
		}
		return st.write(typ, data)
	}
	return st.write(typ, c.Encoded(key, prev))
}

// bookmark sends a BOOKMARK at the store's resourceVersion if it moved
// past what the client last saw. It is called only with the queue drained,
// and the store confirms that under its lock, so no change at or below the
// bookmark's resourceVersion is still on its way.
func (st *watchStream) bookmark() error {
	st.bookmarkDue = false
	// The real server sends a bookmark once the revision has moved past
	// where the watch started, even if an event already carried it.
	rv := st.s.store.BookmarkRV(st.w)
	if rv <= st.minRV || rv < st.lastRV || (rv == st.lastRV && st.bookmarked) {
		return nil
	}
	st.bookmarked = true
	st.lastRV = rv
	return st.write(watch.Bookmark, st.bookmarkObject(rv, false))
}

// bookmarkObject is an empty object of the watched kind carrying only the
// resourceVersion (and the initial-events-end annotation).
func (st *watchStream) bookmarkObject(rv int64, initialEnd bool) []byte {
	kind, apiVersion := st.wr.res.Kind, st.apiVersion()
	if st.wr.format == request.FormatPartial {
		kind, apiVersion = "PartialObjectMetadata", "meta.k8s.io/v1"
	}
	buf := []byte(`{"kind":`)
	buf = strconv.AppendQuote(buf, kind)
	buf = append(buf, `,"apiVersion":`...)
	buf = strconv.AppendQuote(buf, apiVersion)
	buf = append(buf, `,"metadata":{"resourceVersion":"`...)
	buf = strconv.AppendInt(buf, rv, 10)
	buf = append(buf, '"')
	if initialEnd {
		buf = append(buf, `,"annotations":{"`+watch.InitialEventsEndAnnotation+`":"true"}`...)
	}
	return append(buf, "}}"...)
}

// stopped ends the stream after the store dropped the watcher.
func (st *watchStream) stopped() {
	switch st.w.Reason() {
	case storage.StopCut:
		_ = st.flush()
		st.sink.cut()
	case storage.StopCutMidFrame:
		_ = st.flush()
		st.sink.halfFrame(watch.Bookmark, st.bookmarkObject(st.lastRV, false))
	default:
		// Too slow, resource removed or server closing: the real server
		// ends the response.
		st.sink.setWriteDeadline(time.Now().Add(st.s.opts.WatchWriteTimeout))
		_ = st.flush()
		st.sink.end()
	}
}

// httpSink writes watch frames to a chunked HTTP response: JSON lines, or
// length-prefixed protobuf WatchEvents.
type httpSink struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	bw       *bufio.Writer
	protobuf bool
	// scratch is reused for protobuf frames.
	scratch []byte
	// gz, when the stream is gzip-encoded, is where bw writes.
	gz *flushGzip
}

func newHTTPSink(w http.ResponseWriter, protobuf, gzipped bool) *httpSink {
	if _, ok := w.(http.Flusher); !ok {
		return nil
	}
	h := &httpSink{w: w, rc: http.NewResponseController(w), protobuf: protobuf}
	var out io.Writer = w
	if gzipped {
		h.gz = &flushGzip{w: w}
		out = h.gz
	}
	h.bw = bufio.NewWriterSize(out, 32<<10)
	return h
}

func (h *httpSink) frame(typ watch.EventType, object []byte) error {
	if h.protobuf {
		// The frame's header, then the object's bytes as encoded.
		h.scratch = kubeproto.AppendWatchFrameHeader(h.scratch[:0], string(typ), len(object))
		h.bw.Write(h.scratch)
		_, err := h.bw.Write(object)
		return err
	}
	h.bw.WriteString(`{"type":"`)
	h.bw.WriteString(string(typ))
	h.bw.WriteString(`","object":`)
	h.bw.Write(object)
	_, err := h.bw.WriteString("}\n")
	return err
}

func (h *httpSink) flush() error {
	if err := h.bw.Flush(); err != nil {
		return err
	}
	if h.gz != nil {
		if err := h.gz.endMember(); err != nil {
			return err
		}
	}
	return h.rc.Flush()
}

func (h *httpSink) setWriteDeadline(t time.Time) { _ = h.rc.SetWriteDeadline(t) }

func (h *httpSink) abort() { _ = h.rc.SetWriteDeadline(time.Unix(1, 0)) }

func (h *httpSink) halfFrame(typ watch.EventType, object []byte) {
	_ = h.bw.Flush()
	frame := []byte(`{"type":"` + string(typ) + `","object":`)
	frame = append(frame, object[:len(object)/2]...)
	_, _ = h.w.Write(frame)
	_ = h.rc.Flush()
	panic(http.ErrAbortHandler)
}

func (h *httpSink) cut() {
	_ = h.bw.Flush()
	_ = h.rc.Flush()
	panic(http.ErrAbortHandler)
}

func (h *httpSink) end() { _ = h.flush() }

func (h *httpSink) begin() {
	h.w.WriteHeader(http.StatusOK)
	_ = h.rc.Flush()
}
