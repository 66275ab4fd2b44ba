package metrics

// Sink receives measurements. Names follow the Prometheus conventions
// ("kubecache_informer_events_total"); labels are name, value pairs
// ("informer", "pods", "type", "add"), always the same names in the same
// order for one metric. A Sink must be safe for concurrent use and should
// return quickly: it is called on the reporting package's hot paths.
type Sink interface {
	// Add adds delta (not negative) to a counter.
	Add(name string, delta float64, labels ...string)
	// Set sets a gauge.
	Set(name string, value float64, labels ...string)
	// Observe records one observation in a histogram (a duration in
	// seconds, a size).
	Observe(name string, value float64, labels ...string)
}

// Discard is a Sink that keeps nothing.
type Discard struct{}

// Add does nothing.
func (Discard) Add(string, float64, ...string) {}

// Set does nothing.
func (Discard) Set(string, float64, ...string) {}

// Observe does nothing.
func (Discard) Observe(string, float64, ...string) {}
