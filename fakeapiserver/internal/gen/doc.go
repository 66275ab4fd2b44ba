// Command gen writes the fake server's built-in resource table
// (internal/registry's Builtin) from the
// aggregated discovery documents captured from a real kube-apiserver
// (e2e/testdata/real/discovery/aggregated_api.json and
// aggregated_apis.json), so the fake server serves exactly the real
// server's resources, in its order, with its verbs, short names,
// categories and subresources.
//
// Usage (from fakeapiserver/internal/registry, via go generate):
//
//	go run ../gen -in ../../../e2e/testdata/real/discovery -out resources_builtin.go
//
// Files:
//
//	main.go  the command: read the discovery documents, write the table
package main
