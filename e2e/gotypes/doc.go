// Package gotypes checks the fake API server's tables of Go encoding
// facts against the Kubernetes API's own Go types. A real kube-apiserver
// decodes a built-in object into its Go type and encodes it again, so the
// stored object carries what encoding/json writes for that type, which
// the OpenAPI schema alone does not say: the fake server keeps those
// facts in generated tables, and the tests here regenerate them from the
// types by reflection and fail when the checked-in table differs. With
// -update they write the table.
//
// Files (tests only):
//
//	omitted_test.go        the non-pointer scalar fields with omitempty,
//	                       whose zero value the encoding drops
//	never_omitted_test.go  the optional fields the encoding always
//	                       writes, with their zero value, and the
//	                       timestamps that encode as null when zero
//	walk_test.go           walking the types reachable from the served
//	                       kinds, and the captured schemas
package gotypes
