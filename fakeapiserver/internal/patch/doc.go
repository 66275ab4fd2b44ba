// Package patch applies the two schema-less patch formats the API server
// accepts for every resource: JSON merge patch (RFC 7386, merge.go) and
// JSON patch (RFC 6902, json.go), both over ordered jsonv documents so a
// patched object keeps its field order.
//
// Errors come in two kinds, because the server answers them differently:
// a *DecodeError means the patch itself is malformed (400 BadRequest); an
// *ApplyError means a well-formed patch cannot apply to this document
// (a failed test, a missing path, copies past MaxCopyBytes: 422).
//
// Files:
//
//	merge.go  Merge and MergeValues (RFC 7386); DecodeError and ApplyError
//	json.go   JSON (RFC 6902): the operations, their limits (operation count,
//	          MaxCopyBytes) and their errors
package patch
