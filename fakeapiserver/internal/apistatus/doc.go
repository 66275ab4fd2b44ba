// Package apistatus builds the fake API server's error answers: the
// meta.k8s.io Status bodies of the real server's errors, with its codes,
// reasons, messages and details. It is the bottom layer of everything in
// the fake server that answers a request: handlers, validation and the
// registry's rules return a *meta.Status as their error, and the root
// package writes it.
//
// # Files
//
//   - status.go: one builder per error (NotFound, Conflict, Expired,
//     TooLargeRV, ...), GroupResource (how a message names a resource) and
//     From, which turns any error into the Status to send (a 500 unless it
//     already is one).
//   - fielderror.go: FieldError, one field-level validation failure
//     rendered as the real server renders field errors, its constructors
//     (FieldRequired, FieldInvalid, ...) and Invalid, the 422 that lists
//     them.
//   - timeout.go: RequestTimedOut, the 504 for a request that did not
//     finish within its deadline.
package apistatus
