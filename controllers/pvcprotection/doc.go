// Package pvcprotection is the PersistentVolumeClaim protection
// controller: it protects every live claim with a finalizer and
// releases a claim being deleted once no pod uses it.
//
// The API server gives every new claim the kubernetes.io/pvc-protection
// finalizer, so a deleted claim stays Terminating while that finalizer
// is on it. This controller, as the real one, removes the finalizer from
// a claim being deleted when no scheduled pod of its namespace mounts it
// (a pod not yet bound to a node cannot start with a claim being
// deleted). The informer's pods are checked first, then, to be sure of a
// pod the cache has not seen yet, a live list from the server. A claim
// that is not being deleted and lacks the finalizer (one created before
// the server added it, or whose finalizer a client removed) gets it
// here, as the real controller adds it.
//
// # Files
//
//	controller.go Controller, New, Run, and the reconcile of one claim
package pvcprotection
