package reflector

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/watch"
)

// This file holds the harness of the tests that run the real client against
// the fake API server over loopback: a ConfigMap type, a store that records
// any resourceVersion going backwards, a fault proxy for the faults the
// server cannot inject itself, and a convergence check against a fresh list.

// ConfigMap is the object type of the loopback tests.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// testNamespace is where the loopback tests write.
const testNamespace = "default"

// checkedStore is a cache.Indexer that records every write that would move
// an object's resourceVersion backwards, and signals every change.
type checkedStore struct {
	*cache.Indexer[*ConfigMap]
	// mu guards backwards and changed.
	mu        sync.Mutex
	backwards []string
	changed   chan struct{}
}

func newCheckedStore() *checkedStore {
	return &checkedStore{Indexer: cache.NewIndexer[*ConfigMap](nil), changed: make(chan struct{})}
}

// check records o if it is older than what the store holds.
func (s *checkedStore) check(o *ConfigMap) {
	if old, ok := s.GetByKey(objectKey(o.Namespace, o.Name)); ok && olderRV(o.ResourceVersion, old.ResourceVersion) {
		s.mu.Lock()
		s.backwards = append(s.backwards, fmt.Sprintf("%s: rv=%s -> rv=%s", o.Name, old.ResourceVersion, o.ResourceVersion))
		s.mu.Unlock()
	}
}

func (s *checkedStore) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *checkedStore) Add(o *ConfigMap) error {
	s.check(o)
	defer s.notify()
	return s.Indexer.Add(o)
}

func (s *checkedStore) Update(o *ConfigMap) error {
	s.check(o)
	defer s.notify()
	return s.Indexer.Update(o)
}

func (s *checkedStore) Delete(o *ConfigMap) error {
	defer s.notify()
	return s.Indexer.Delete(o)
}

func (s *checkedStore) Replace(items []*ConfigMap, rv string) error {
	for _, o := range items {
		s.check(o)
	}
	defer s.notify()
	return s.Indexer.Replace(items, rv)
}

func (s *checkedStore) BeginReplace() cache.Replacement[*ConfigMap] {
	return &checkedReplacement{Replacement: s.Indexer.BeginReplace(), s: s}
}

// checkedReplacement checks each staged object.
type checkedReplacement struct {
	cache.Replacement[*ConfigMap]
	s *checkedStore
}

func (r *checkedReplacement) Add(o *ConfigMap) error {
	r.s.check(o)
	return r.Replacement.Add(o)
}

func (r *checkedReplacement) Commit(rv string) error {
	defer r.s.notify()
	return r.Replacement.Commit(rv)
}

// violations returns the recorded backwards moves.
func (s *checkedStore) violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.backwards...)
}

// snapshot describes the store as "name@rv=data" lines, sorted.
func (s *checkedStore) snapshot() []string { return describe(s.List()) }

func describe(items []*ConfigMap) []string {
	out := make([]string, 0, len(items))
	for _, o := range items {
		out = append(out, o.Name+"@"+o.ResourceVersion+"="+o.Data["v"])
	}
	sort.Strings(out)
	return out
}

// faultProxy stands between the reflector and the fake server and injects
// faults of its own: it can strip the limit parameter (a server that
// ignores limit), drop the initial-events-end bookmark (a streaming list
// that never finishes) and write a malformed frame into a watch stream.
type faultProxy struct {
	srv *httptest.Server
	rp  *httputil.ReverseProxy
	// stripLimit removes "limit" from every request.
	stripLimit atomic.Bool
	// dropInitialEnd removes the initial-events-end bookmark from streams.
	dropInitialEnd atomic.Bool
	// corruptAfter, when set, is a marker: the next watch event whose line
	// contains it is followed by one malformed frame (once).
	corruptAfter atomic.Pointer[string]
	// corrupted counts the malformed frames written.
	corrupted atomic.Int32
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	u, err := url.Parse(target)
	require.NoError(t, err)
	p := &faultProxy{}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			// The line filter reads watch streams as sent: the proxy's
			// own transport asks for gzip and decodes it (a streaming
			// list is gzip-encoded for a client that asks).
			pr.Out.Header.Del("Accept-Encoding")
			if p.stripLimit.Load() {
				q := pr.Out.URL.Query()
				q.Del("limit")
				pr.Out.URL.RawQuery = q.Encode()
			}
		},
		FlushInterval: -1,
		Transport:     &http.Transport{},
		ModifyResponse: func(resp *http.Response) error {
			if resp.Request.URL.Query().Get("watch") != "" && resp.StatusCode == http.StatusOK {
				resp.Body = &lineFilter{r: bufio.NewReader(resp.Body), c: resp.Body, p: p}
			}
			return nil
		},
		ErrorLog: log.New(io.Discard, "", 0),
	}
	p.rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) { w.WriteHeader(http.StatusBadGateway) }
	p.srv = httptest.NewServer(p.rp)
	t.Cleanup(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
		p.rp.Transport.(*http.Transport).CloseIdleConnections()
	})
	return p
}

// malformedFrame is what the proxy writes into a stream.
const malformedFrame = "{\"type\":\"MODIFIED\",\"object\":{not json}\n"

// lineFilter rewrites a newline-delimited watch stream line by line.
type lineFilter struct {
	r       *bufio.Reader
	c       io.Closer
	p       *faultProxy
	pending []byte
}

func (f *lineFilter) Read(b []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.r.ReadBytes('\n')
		if len(line) > 0 {
			if f.p.dropInitialEnd.Load() && bytes.Contains(line, []byte(watch.InitialEventsEndAnnotation)) {
				line = nil
			}
			if m := f.p.corruptAfter.Load(); m != nil && bytes.Contains(line, []byte(*m)) && f.p.corruptAfter.CompareAndSwap(m, nil) {
				f.p.corrupted.Add(1)
				line = append(line, malformedFrame...)
			}
			f.pending = line
		}
		if err != nil {
			if len(f.pending) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(b, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *lineFilter) Close() error { return f.c.Close() }

// loopback is a reflector of ConfigMaps running against a fake API server
// through a fault proxy.
type loopback struct {
	t      *testing.T
	srv    *fakeapiserver.Server
	proxy  *faultProxy
	direct *rest.Client // talks to the server itself, for writes and checks
	store  *checkedStore
	r      *Reflector[*ConfigMap]
	run    running

	reports
}

// loopbackTimeout bounds each wait of a loopback test.
const loopbackTimeout = 20 * time.Second

// fastBackoff keeps loopback tests quick.
var fastBackoff = Backoff{Initial: 5 * time.Millisecond, Max: 50 * time.Millisecond, ResetAfter: time.Second}

// startLoopback starts a fake server with srvOpts, a proxy in front of it,
// and a reflector with opts (fast backoff unless set) that runs until the
// test ends; setup runs before the reflector starts (to install faults its
// first requests must meet). It does not wait for the first sync.
func startLoopback(t *testing.T, srvOpts fakeapiserver.Options, opts Options, setup ...func(l *loopback)) *loopback {
	t.Helper()
	l := &loopback{t: t, srv: fakeapiserver.NewForTest(t, srvOpts)}
	l.proxy = newFaultProxy(t, l.srv.URL())
	l.direct = newClient(t, l.srv.URL())
	viaProxy := newClient(t, l.proxy.srv.URL)
	l.store = newCheckedStore()
	if opts.Backoff == (Backoff{}) {
		opts.Backoff = fastBackoff
	}
	opts.Name = "configmaps"
	l.install(&opts)
	// JSON: the fault proxy rewrites watch streams line by line.
	lw, err := NewListWatch[*ConfigMap](viaProxy, Source{Resource: "configmaps", Namespace: testNamespace, Wire: rest.WireJSON})
	require.NoError(t, err)
	r, err := NewReflector[*ConfigMap](lw, l.store, opts)
	require.NoError(t, err)
	l.r = r
	for _, f := range setup {
		f(l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.run = goRun(ctx, cancel, func(ctx context.Context) {
		if err := r.Run(ctx); err != nil {
			t.Errorf("Run() = %v", err)
		}
	})
	t.Cleanup(l.stop)
	return l
}

// newClient returns a rest client for url without rate limiting, closed
// when the test ends.
func newClient(t testing.TB, u string) *rest.Client {
	c, err := rest.NewClient(&rest.Config{Host: u, QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// stop ends the reflector and waits for it.
func (l *loopback) stop() { l.run.stop(l.t, loopbackTimeout) }

func (l *loopback) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), loopbackTimeout)
}

// write sends one write to the server, retrying when the connection fails
// before an answer (an injected restart drops idle connections). It returns
// the server's error, if any.
func (l *loopback) write(do func(ctx context.Context) error) error {
	var err error
	for range 5 {
		ctx, cancel := l.ctx()
		err = do(ctx)
		cancel()
		var se *rest.StatusError
		if err == nil || errors.As(err, &se) {
			return err
		}
	}
	return err
}

// configMap builds a ConfigMap with data v.
func configMap(name, v string) *ConfigMap {
	return &ConfigMap{TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: testNamespace}, Data: map[string]string{"v": v}}
}

// create writes a new ConfigMap with data v.
func (l *loopback) create(name, v string) {
	l.t.Helper()
	err := l.write(func(ctx context.Context) error {
		return l.direct.Post().Namespace(testNamespace).Resource("configmaps").Body(configMap(name, v)).Do(ctx).Error()
	})
	if rest.IsAlreadyExists(err) {
		err = nil // a retried create that had gone through
	}
	require.NoError(l.t, err, "create %s", name)
}

// update overwrites the data of a ConfigMap.
func (l *loopback) update(name, v string) {
	l.t.Helper()
	err := l.write(func(ctx context.Context) error {
		return l.direct.Put().Namespace(testNamespace).Resource("configmaps").Name(name).Body(configMap(name, v)).Do(ctx).Error()
	})
	require.NoError(l.t, err, "update %s", name)
}

// remove deletes a ConfigMap.
func (l *loopback) remove(name string) {
	l.t.Helper()
	err := l.write(func(ctx context.Context) error {
		return l.direct.Delete().Namespace(testNamespace).Resource("configmaps").Name(name).Do(ctx).Error()
	})
	if rest.IsNotFound(err) {
		err = nil // a retried delete that had gone through
	}
	require.NoError(l.t, err, "delete %s", name)
}

// serverState lists the server's ConfigMaps directly.
func (l *loopback) serverState() ([]string, error) {
	ctx, cancel := l.ctx()
	defer cancel()
	list, err := rest.ListAs[*ConfigMap](ctx, l.direct.Get().Namespace(testNamespace).Resource("configmaps"))
	if err != nil {
		return nil, err
	}
	return describe(list.Items), nil
}

// waitConverged waits until the store holds exactly what a fresh list from
// the server holds, and checks no resourceVersion ever went backwards.
func (l *loopback) waitConverged() {
	l.t.Helper()
	deadline := time.After(loopbackTimeout)
	for {
		l.store.mu.Lock()
		changed := l.store.changed
		l.store.mu.Unlock()
		want, err := l.serverState()
		require.NoError(l.t, err)
		if got := l.store.snapshot(); fmt.Sprint(got) == fmt.Sprint(want) && l.r.HasSynced() {
			require.Empty(l.t, l.store.violations(), "resourceVersions went backwards")
			return
		}
		select {
		case <-changed:
		case <-l.tracedChan():
		case <-deadline:
			want, _ := l.serverState()
			l.t.Fatalf("store never converged:\n got  %v\n want %v\nstate trace:\n%s", l.store.snapshot(), want, l.stateTrace())
		}
	}
}

// waitTrace waits until cond holds over the traces.
func (l *loopback) waitTrace(what string, cond func() bool) {
	l.t.Helper()
	deadline := time.After(loopbackTimeout)
	for {
		c := l.tracedChan()
		if cond() {
			return
		}
		select {
		case <-c:
		case <-deadline:
			l.t.Fatalf("never saw %s; state trace:\n%s", what, l.stateTrace())
		}
	}
}

// waitSynced waits for the first sync and an open watch on the server.
func (l *loopback) waitSynced() {
	l.t.Helper()
	l.waitTrace("a sync", l.r.HasSynced)
	l.waitWatchers(1)
}

// waitWatchers waits until the server has n open watches.
func (l *loopback) waitWatchers(n int) {
	l.t.Helper()
	ctx, cancel := l.ctx()
	defer cancel()
	require.NoError(l.t, l.srv.WaitForWatchers(ctx, "configmaps", n))
}

// stateTrace prints the state changes.
func (l *loopback) stateTrace() string {
	var b strings.Builder
	for _, e := range tracesOf[StateChanged](l) {
		b.WriteString(e.String() + "\n")
	}
	return b.String()
}

// lists counts the LIST requests of a given resourceVersion ("*" for any).
func (l *loopback) lists(rv string) int {
	n := 0
	for _, e := range tracesOf[ListRequested](l) {
		if e.Page == 1 && (rv == "*" || e.Options.ResourceVersion == rv) {
			n++
		}
	}
	return n
}
