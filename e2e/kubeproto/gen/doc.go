// Command gen writes kubeproto's schema table: for every kind the fake API
// server serves, the protobuf message of its Go type in k8s.io/api (and
// apiextensions-apiserver, kube-aggregator, apimachinery's meta/v1) — field
// numbers, wire types, repeated/map/optional-with-presence — together with
// the JSON shape each field maps to (name, omitempty, omitzero, inline),
// read from the `protobuf:"…"` and `json:"…"` struct tags by reflection.
//
//	cd e2e && go run ./kubeproto/gen -out ../kubeproto/zz_generated_schema.go
//
// (go generate ./kubeproto runs exactly that.) The generator lives in the
// e2e module so that kubecache's go.mod never gains a k8s.io dependency. A Go
// type it does not know how to map (a custom JSON marshaler it has no rule
// for, a map with a non-string key, an untagged embedded struct) is an
// error, never a silent guess.
//
// Files:
//
//	main.go  the command: walk the Go types, write the table
package main
