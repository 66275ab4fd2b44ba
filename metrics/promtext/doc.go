// Package promtext writes a metrics.Registry in the Prometheus text
// exposition format (version 0.0.4), which every Prometheus server and
// most agents scrape, without a Prometheus client library.
//
// # Files
//
//	promtext.go  Write (a snapshot to an io.Writer) and Handler (an
//	             http.Handler serving a Registry)
package promtext
