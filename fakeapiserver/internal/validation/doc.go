// Package validation checks what a write to the fake API server sends, as
// the real server checks it: an object's metadata against its resource's
// rules, and a body's fields against its kind's schema. Failures come back
// as apistatus field errors and Status bodies with the real server's
// wording; the root package's decoders and write handlers call it.
//
// It sits above registry (a resource's name rule, whether it is custom and
// its CRD schema) and apistatus, and below internal/builtin and the
// handlers. It does no HTTP.
//
// # Files
//
//   - meta.go: ObjectMeta (names, generateName, labels, annotations,
//     finalizers, owner references) and FieldManager.
//   - names.go: the real server's name formats (RFC 1123 label and
//     subdomain, DNS-1035 label) and its wording of them, which
//     internal/builtin uses too.
//   - types.go: CheckTypes, one walk of a built-in kind's body against its
//     OpenAPI schema (internal/openapi): wrong types, integers that do not
//     fit, unknown and duplicate fields, as the Go decoder reports them.
//   - quantity.go: resource quantities ("100m", "1Gi").
//   - custom.go: CheckCustom, a custom resource's body against its CRD's
//     structural schema (pruning unknown fields, type errors, defaults),
//     and CustomValues, its value keywords (internal/structural).
package validation
