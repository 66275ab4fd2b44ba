package metrics

import (
	"slices"
	"strings"
	"sync"
)

// Kind says what a metric is.
type Kind int

const (
	// Counter only goes up.
	Counter Kind = iota + 1
	// Gauge is set to a value.
	Gauge
	// Histogram counts observations into buckets.
	Histogram
)

// DefaultBuckets are the histogram upper bounds a Registry uses: from a
// millisecond to a minute, suited to durations in seconds.
var DefaultBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60}

// Registry is a Sink that keeps every metric in memory. The zero value is
// ready to use, with DefaultBuckets. It is safe for concurrent use.
type Registry struct {
	// Buckets, if set before first use, replaces DefaultBuckets.
	Buckets []float64

	mu      sync.Mutex
	metrics map[string]*Metric
}

// Metric is one metric with one set of label values.
type Metric struct {
	// Name and Labels (name, value pairs) identify it; Kind says what it
	// is.
	Name   string
	Labels []string
	Kind   Kind
	// Value is a counter's or gauge's value.
	Value float64
	// Buckets are a histogram's upper bounds, Counts the observations at
	// or below each (cumulative), Count and Sum all of them.
	Buckets []float64
	Counts  []uint64
	Count   uint64
	Sum     float64
}

// Add adds delta to a counter; a negative delta is ignored.
func (r *Registry) Add(name string, delta float64, labels ...string) {
	if delta < 0 {
		return
	}
	r.mu.Lock()
	r.metric(name, Counter, labels).Value += delta
	r.mu.Unlock()
}

// Set sets a gauge.
func (r *Registry) Set(name string, value float64, labels ...string) {
	r.mu.Lock()
	r.metric(name, Gauge, labels).Value = value
	r.mu.Unlock()
}

// Observe records value in a histogram.
func (r *Registry) Observe(name string, value float64, labels ...string) {
	r.mu.Lock()
	m := r.metric(name, Histogram, labels)
	for i, b := range m.Buckets {
		if value <= b {
			m.Counts[i]++
		}
	}
	m.Count++
	m.Sum += value
	r.mu.Unlock()
}

// metric finds or makes the metric; r.mu is held. A name reported with
// another kind than its first gets a separate entry under a key of its
// own, so a mistake never corrupts the first.
func (r *Registry) metric(name string, kind Kind, labels []string) *Metric {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte(byte('0' + kind))
	for _, l := range labels {
		b.WriteByte(0)
		b.WriteString(l)
	}
	key := b.String()
	if m, ok := r.metrics[key]; ok {
		return m
	}
	if r.metrics == nil {
		r.metrics = map[string]*Metric{}
	}
	m := &Metric{Name: name, Labels: slices.Clone(labels), Kind: kind}
	if kind == Histogram {
		m.Buckets = r.Buckets
		if m.Buckets == nil {
			m.Buckets = DefaultBuckets
		}
		m.Buckets = slices.Clone(m.Buckets)
		m.Counts = make([]uint64, len(m.Buckets))
	}
	r.metrics[key] = m
	return m
}

// Snapshot returns a copy of every metric, sorted by name, then labels.
func (r *Registry) Snapshot() []Metric {
	r.mu.Lock()
	out := make([]Metric, 0, len(r.metrics))
	for _, m := range r.metrics {
		c := *m
		c.Counts = slices.Clone(m.Counts)
		out = append(out, c)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b Metric) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return slices.Compare(a.Labels, b.Labels)
	})
	return out
}

// Get returns a copy of the metric with name and exactly labels (name,
// value pairs in the order they were reported), whatever its kind, and
// whether there is one.
func (r *Registry) Get(name string, labels ...string) (Metric, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.metrics {
		if m.Name == name && slices.Equal(m.Labels, labels) {
			c := *m
			c.Counts = slices.Clone(m.Counts)
			return c, true
		}
	}
	return Metric{}, false
}
