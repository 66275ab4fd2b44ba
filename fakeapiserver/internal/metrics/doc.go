// Package metrics counts the fake API server's requests and renders them
// at /metrics in the Prometheus text format, under the real server's
// names, help texts, labels and buckets: apiserver_request_total,
// apiserver_request_duration_seconds, apiserver_current_inflight_requests,
// apiserver_longrunning_requests, apiserver_watch_events_total,
// apiserver_watch_events_sizes and
// apiserver_resource_objects. A test (or kubectl get --raw /metrics) reads
// what a client did to the server without instrumenting the client.
//
// Files: metrics.go (Registry, Request, the series), text.go (the text
// exposition), doc.go.
package metrics
