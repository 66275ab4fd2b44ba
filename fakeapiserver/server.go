package fakeapiserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/admission"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/auth"
	"github.com/kubecache/kubecache/fakeapiserver/internal/builtin"
	"github.com/kubecache/kubecache/fakeapiserver/internal/controllers"
	"github.com/kubecache/kubecache/fakeapiserver/internal/discovery"
	"github.com/kubecache/kubecache/fakeapiserver/internal/faults"
	"github.com/kubecache/kubecache/fakeapiserver/internal/metrics"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/satoken"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// Server is an in-memory Kubernetes API server. It is an http.Handler, so
// it can be mounted anywhere, and Start serves it on a loopback listener.
// All methods are safe for concurrent use.
type Server struct {
	opts     Options
	clock    Clock
	registry *registry.Registry
	store    *storage.Store
	faults   *faults.Injector
	log      *slog.Logger

	// rngMu guards rng, which makes UIDs, generated names and watch
	// timeouts (deterministic with Options.Seed).
	rngMu sync.Mutex
	rng   *rand.Rand

	// services allocates Services' cluster IPs and node ports.
	services *builtin.ServiceAllocator
	// saTokens signs and checks service account tokens.
	saTokens *satoken.Issuer
	// metrics counts requests for /metrics.
	metrics *metrics.Registry

	// discovery serves discovery and OpenAPI from the registry.
	discovery *discovery.Server

	// policies runs the stored admission policies (internal/admission).
	policies *admission.Dispatcher

	// auth authenticates and authorizes requests (internal/auth).
	auth *auth.Authenticator

	// inflight bounds the requests served at once (limits.go).
	inflight *inflight

	// lifeMu guards every field below.
	lifeMu   sync.Mutex
	listener net.Listener
	http     *http.Server
	url      string
	closing  bool
	// conns tracks open client connections so a restart can drop them.
	conns map[net.Conn]struct{}

	// connWriteBuffer, when set (tests), shrinks each accepted
	// connection's socket send buffer so a client that stops reading
	// blocks the server sooner.
	connWriteBuffer int

	// panics counts handler panics (bugs); the fuzz test checks it.
	panics atomic.Int64

	// handlers counts requests in flight; Close waits for them.
	handlers sync.WaitGroup
	// background counts goroutines the server started (serve loop,
	// compaction); Close waits for them.
	background sync.WaitGroup
	// ctrl holds the in-server controllers (garbage collector,
	// namespaces, CRDs) and the hooks they give resources; set once in
	// New.
	ctrl *controllers.Controllers

	// stop ends the background goroutines.
	stop   context.CancelFunc
	stopCh <-chan struct{}
}

// New returns a Server holding the built-in resources and (unless
// Options.NoDefaultObjects) the default namespaces and the kubernetes
// Service. Call Start to listen, or use the Server as an http.Handler.
func New(opts Options) *Server {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts:     opts,
		clock:    opts.Clock,
		registry: registry.NewBuiltin(),
		store:    storage.New(opts.Clock.Now, opts.HistoryLimit),
		inflight: newInflight(opts.MaxRequestsInFlight, opts.MaxMutatingRequestsInFlight),
		log:      opts.Logger,
		conns:    map[net.Conn]struct{}{},
		stop:     cancel,
		stopCh:   ctx.Done(),
	}
	if opts.HistoryBytes != 0 {
		s.store.SetHistoryBytes(opts.HistoryBytes)
	}
	var c509 *auth.Certs
	if opts.TLS {
		host, _, _ := net.SplitHostPort(opts.Addr)
		hosts := []string{"127.0.0.1", "localhost", "::1"}
		if host != "" && host != "127.0.0.1" {
			hosts = append(hosts, host)
		}
		c, err := auth.GenerateCerts(time.Now(), hosts)
		if err != nil {
			panic(err) // only a broken crypto/rand can fail here
		}
		c509 = c
	}
	s.auth = auth.New(opts.Tokens, opts.ClientCertificates, opts.Forbid, opts.Impersonate, c509)
	s.discovery = discovery.New(s.registry)
	s.discovery.NoOpenAPIV3 = opts.NoOpenAPIV3
	cidr := opts.ServiceCIDR
	if cidr == "" {
		cidr = serviceCIDR
	}
	services, err := builtin.NewServiceAllocator(cidr)
	if err != nil {
		panic("fakeapiserver: Options.ServiceCIDR: " + err.Error())
	}
	s.services = services
	s.saTokens = satoken.NewIssuer(tokenIssuer)
	s.metrics = metrics.New()
	s.policies = admission.NewDispatcher(s.store, policyResolver{s})
	s.auth.SetServiceAccountTokens(s.serviceAccountUser)
	s.faults = faults.New(s.clock, s.log)
	s.ctrl = controllers.New(s.store, s.registry, s.clock.Now, s.log, serverWriter{s},
		controllers.Switches{NoGarbageCollector: opts.NoGarbageCollector, NoNamespaceController: opts.NoNamespaceController})
	if opts.Seed != 0 {
		s.rng = rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	} else {
		s.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if !opts.NoDefaultObjects {
		s.createDefaultObjects()
	}
	if opts.CompactionInterval > 0 {
		s.background.Add(1)
		go s.compactLoop(ctx)
	}
	return s
}

// NewForTest starts a Server for a test and closes it when the test ends.
func NewForTest(t testing.TB, opts Options) *Server {
	t.Helper()
	s := New(opts)
	if err := s.Start(); err != nil {
		s.Close()
		t.Fatalf("fakeapiserver: start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start listens on Options.Addr (127.0.0.1:0 by default) and serves in the
// background until Close.
func (s *Server) Start() error {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.closing {
		return storage.ErrServerClosing
	}
	if s.listener != nil {
		return errors.New("fakeapiserver: already started")
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("fakeapiserver: listen on %s: %w", s.opts.Addr, err)
	}
	tlsConfig, err := s.auth.ServerTLSConfig()
	if err != nil {
		ln.Close()
		return err
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    1 << 20,
		TLSConfig:         tlsConfig,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		ConnState:         s.trackConn,
	}
	s.listener, s.http = ln, hs
	s.url = scheme + "://" + ln.Addr().String()
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		var err error
		if tlsConfig != nil {
			err = hs.ServeTLS(ln, "", "")
		} else {
			err = hs.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	}()
	return nil
}

// URL returns the base URL ("http://127.0.0.1:port" or https), or "" before
// Start.
func (s *Server) URL() string {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	return s.url
}

// Close ends every watch, closes the listener and every connection, stops
// the background goroutines and waits for all of them and for every
// handler to return. It is idempotent.
func (s *Server) Close() {
	s.lifeMu.Lock()
	if s.closing {
		s.lifeMu.Unlock()
		return
	}
	s.closing = true
	hs := s.http
	s.lifeMu.Unlock()

	s.store.CloseAll(storage.StopServerClosing, true)
	s.faults.ReleaseAll()
	s.stop()
	if hs != nil {
		hs.Close()
	}
	s.handlers.Wait()
	s.background.Wait()
}

func (s *Server) trackConn(c net.Conn, state http.ConnState) {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	switch state {
	case http.StateNew:
		s.conns[c] = struct{}{}
		if tc, ok := c.(*net.TCPConn); ok && s.connWriteBuffer > 0 {
			_ = tc.SetWriteBuffer(s.connWriteBuffer)
		}
	case http.StateHijacked, http.StateClosed:
		delete(s.conns, c)
	}
}

// dropConnections closes every client connection (a restart).
func (s *Server) dropConnections() int {
	s.lifeMu.Lock()
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.lifeMu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	return len(conns)
}

// compactLoop compacts, at every interval, everything older than the
// resourceVersion seen at the previous tick.
func (s *Server) compactLoop(ctx context.Context) {
	defer s.background.Done()
	prev := s.store.ResourceVersion()
	for {
		tick, stop := s.clock.NewTimer(s.opts.CompactionInterval)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-tick:
		}
		cur := s.store.ResourceVersion()
		if at := s.store.Compact(prev); at > 0 {
			s.log.Debug("compacted", "resourceVersion", at)
		}
		prev = cur
	}
}

// ServeHTTP serves the Kubernetes API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.lifeMu.Lock()
	if s.closing {
		s.lifeMu.Unlock()
		request.WriteStatus(w, r, apistatus.New(503, "ServiceUnavailable", "the server is shutting down"))
		return
	}
	s.handlers.Add(1)
	s.lifeMu.Unlock()
	defer s.handlers.Done()

	rec := &recorder{ResponseWriter: w}
	start := time.Now()
	var note string
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				s.logRequest(r, rec, start, note+" aborted")
				panic(p)
			}
			s.panics.Add(1)
			s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			if !rec.wroteHeader {
				request.WriteError(rec, r, fmt.Errorf("panic: %v", p))
			}
		}
		s.logRequest(r, rec, start, note)
		s.metrics.Observe(requestMetric(r, rec.status(), time.Since(start)))
	}()
	note = s.serve(rec, r)
}

func (s *Server) logRequest(r *http.Request, rec *recorder, start time.Time, note string) {
	attrs := []any{"method", r.Method, "path", r.URL.Path, "query", r.URL.RawQuery, "status", rec.status(), "duration", time.Since(start)}
	if note != "" {
		attrs = append(attrs, "fault", note)
	}
	s.log.Info("request", attrs...)
}

// serve routes one request; it returns a note for the request log naming
// any fault that was injected.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) string {
	if r.ContentLength > s.opts.MaxRequestBodyBytes {
		request.WriteStatus(w, r, apistatus.TooLarge(s.opts.MaxRequestBodyBytes))
		return ""
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBodyBytes)
	}
	if s.opts.Admin && isAdminPath(r.URL.Path) {
		s.serveAdmin(w, r)
		return ""
	}
	if !auth.IsPublicPath(r.URL.Path) {
		user, err := s.auth.Authenticate(r)
		if err != nil {
			request.WriteError(w, r, err)
			return ""
		}
		r = r.WithContext(auth.WithUser(r.Context(), user))
	}
	info, isResource := request.ParsePath(r)
	if !longRunning(info, isResource) {
		release, ok := s.inflight.acquire(r)
		if !ok {
			tooManyRequests(w)
			return "in-flight limit"
		}
		defer release()
		kind := "readOnly"
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			kind = "mutating"
		}
		s.metrics.Inflight(kind, 1)
		defer s.metrics.Inflight(kind, -1)
		var cancel func()
		var err error
		if r, cancel, err = s.withDeadline(w, r); err != nil {
			request.WriteError(w, r, err)
			return ""
		}
		defer cancel()
	}
	if r.URL.Path == "/metrics" {
		s.serveMetrics(w)
		return ""
	}
	if longRunning(info, isResource) && isResource {
		lr := requestMetric(r, 0, 0)
		s.metrics.LongRunning(lr, 1)
		defer s.metrics.LongRunning(lr, -1)
	}
	note, handled := s.faults.Apply(w, r, info, isResource)
	if handled {
		return note
	}
	switch {
	case isResource && !info.Discovery:
		s.serveResource(w, r, info)
	case isResource:
		s.discovery.ServeGroupVersion(w, r, info.Group, info.Version)
	default:
		s.discovery.ServeNonResource(w, r)
	}
	return note
}

// recorder remembers the status code for the request log while passing
// through Flush, Hijack and the ResponseController methods.
type recorder struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wroteHeader {
		r.code, r.wroteHeader = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wroteHeader {
		r.code, r.wroteHeader = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := r.ResponseWriter.(http.Hijacker); ok {
		r.code, r.wroteHeader = http.StatusSwitchingProtocols, true
		return h.Hijack()
	}
	return nil, nil, errors.New("connection cannot be hijacked")
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) status() int {
	if !r.wroteHeader {
		return http.StatusOK
	}
	return r.code
}

// newUID returns a random (or seeded) RFC 4122 version 4 UUID.
func (s *Server) newUID() string {
	s.rngMu.Lock()
	a, b := s.rng.Uint64(), s.rng.Uint64()
	s.rngMu.Unlock()
	var u [16]byte
	for i := range 8 {
		u[i] = byte(a >> (8 * i))
		u[8+i] = byte(b >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// nameSuffix returns the 5 characters generateName appends, from the same
// alphabet as the real server (no vowels, no confusable digits).
func (s *Server) nameSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[s.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// jitter returns a float in [0, 1) for the default watch timeout.
func (s *Server) jitter() float64 {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return s.rng.Float64()
}
