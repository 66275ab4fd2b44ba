package metrics

import (
	"strconv"
	"sync"
	"time"
)

// Request describes one finished request with the labels the real server
// gives it: Verb is GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE,
// DELETECOLLECTION or CONNECT (the HTTP method for a path outside the
// API); Scope is "resource", "namespace" or "cluster"; Subresource is the
// path for a request outside the API (/healthz), with the other labels
// empty; Component is "apiserver" for API requests.
type Request struct {
	Verb, DryRun, Group, Version, Resource, Subresource, Scope, Component string
	Code                                                                  int
	Duration                                                              time.Duration
}

// requestKey is the label set of a request series without the code.
type requestKey struct {
	component, dryRun, group, resource, scope, subresource, verb, version string
}

// durationBuckets are the real server's upper bounds of
// apiserver_request_duration_seconds.
var durationBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// histogram is one series of a histogram: counts per bucket (not yet
// cumulative), sum and count.
type histogram struct {
	buckets []uint64
	sum     float64
	count   uint64
}

// resourceKey names a resource for the per-resource series.
type resourceKey struct{ group, version, resource string }

// longKey is the label set of apiserver_longrunning_requests.
type longKey struct {
	component, group, resource, scope, subresource, verb, version string
}

// Registry holds the server's metrics. It is safe for concurrent use; the
// zero value is not usable, use New.
type Registry struct {
	// mu guards every map below.
	mu          sync.Mutex
	total       map[requestKey]map[int]uint64
	durations   map[requestKey]*histogram
	inflight    map[string]int64
	longRunning map[longKey]int64
	watchEvents map[resourceKey]*histogram
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{
		total:       map[requestKey]map[int]uint64{},
		durations:   map[requestKey]*histogram{},
		inflight:    map[string]int64{"mutating": 0, "readOnly": 0},
		longRunning: map[longKey]int64{},
		watchEvents: map[resourceKey]*histogram{},
	}
}

func keyOf(r Request) requestKey {
	return requestKey{component: r.Component, dryRun: r.DryRun, group: r.Group, resource: r.Resource,
		scope: r.Scope, subresource: r.Subresource, verb: r.Verb, version: r.Version}
}

// Observe counts a finished request and its latency. Watches count when
// they end, as on the real server.
func (m *Registry) Observe(r Request) {
	k := keyOf(r)
	secs := r.Duration.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	codes := m.total[k]
	if codes == nil {
		codes = map[int]uint64{}
		m.total[k] = codes
	}
	codes[r.Code]++
	h := m.durations[k]
	if h == nil {
		h = &histogram{buckets: make([]uint64, len(durationBuckets))}
		m.durations[k] = h
	}
	for i, le := range durationBuckets {
		if secs <= le {
			h.buckets[i]++
			break
		}
	}
	h.sum += secs
	h.count++
}

// Inflight adds delta to the requests in flight of a kind: "mutating"
// (writes) or "readOnly".
func (m *Registry) Inflight(kind string, delta int64) {
	m.mu.Lock()
	m.inflight[kind] += delta
	m.mu.Unlock()
}

// LongRunning adds delta to the long-running requests (watches, exec...)
// with r's labels (Code and Duration unused).
func (m *Registry) LongRunning(r Request, delta int64) {
	k := longKey{component: r.Component, group: r.Group, resource: r.Resource, scope: r.Scope,
		subresource: r.Subresource, verb: r.Verb, version: r.Version}
	m.mu.Lock()
	m.longRunning[k] += delta
	m.mu.Unlock()
}

// sizeBuckets are the real server's upper bounds of
// apiserver_watch_events_sizes, in bytes: 1 KiB to 128 KiB.
var sizeBuckets = []float64{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}

// WatchSizes gathers the sizes of the events one watch sent, so that a
// watch tells the registry once a batch rather than once an event. The
// zero value is empty; it is not safe for concurrent use.
type WatchSizes struct {
	buckets [9]uint64 // per sizeBuckets, then above the last
	sum     uint64
	count   uint64
}

// Add counts one event of size bytes.
func (b *WatchSizes) Add(size int) {
	i := 0
	for i < len(sizeBuckets) && float64(size) > sizeBuckets[i] {
		i++
	}
	b.buckets[i]++
	b.sum += uint64(size)
	b.count++
}

// Count is the number of events added since the last report.
func (b *WatchSizes) Count() uint64 { return b.count }

// WatchEvents adds the events in b, sent to a watcher of a resource at a
// version, to apiserver_watch_events_total and
// apiserver_watch_events_sizes, and empties b.
func (m *Registry) WatchEvents(group, version, resource string, b *WatchSizes) {
	k := resourceKey{group, version, resource}
	m.mu.Lock()
	h := m.watchEvents[k]
	if h == nil {
		h = &histogram{buckets: make([]uint64, len(b.buckets))}
		m.watchEvents[k] = h
	}
	for i, n := range b.buckets {
		h.buckets[i] += n
	}
	h.sum += float64(b.sum)
	h.count += b.count
	m.mu.Unlock()
	*b = WatchSizes{}
}

// formatFloat renders a value as the Prometheus client does.
func formatFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}
