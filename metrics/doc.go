// Package metrics is the small interface through which the library's
// packages report what they do, and an in-memory Registry that implements
// it. A program hands a Sink to the packages it configures (for the
// informer, informer.Options.Metrics) and exposes the Registry however it
// likes; package promtext writes it in the Prometheus text format, so no
// Prometheus client library is needed.
//
// # Files
//
//	sink.go      Sink, the interface a package reports through, and Discard
//	registry.go  Registry: counters, gauges and histograms kept in memory,
//	             Snapshot, a sorted copy for exposition, and Get, one metric
package metrics
