// Package endpointslice is the EndpointSlice controller: every Service
// with a selector gets an EndpointSlice (labelled
// kubernetes.io/service-name and managed-by
// endpointslice-controller.k8s.io, owned by the Service) listing the pods
// it selects that have an IP, each with its ready, serving and
// terminating conditions, its node and a reference to it, and the
// Service's ports resolved against the pods' container ports.
//
// One slice holds every endpoint of a Service (the real controller
// splits at 100 per slice; a Service with more gets one slice here).
//
// # Files
//
//	controller.go Controller, New, Run, and the reconcile of one Service
package endpointslice
