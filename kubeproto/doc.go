// Package kubeproto converts objects between the Kubernetes protobuf
// encoding and their JSON form, byte for byte as a real kube-apiserver
// writes each: the server's protobuf output is canonical (fields in number
// order, map entries in key order), and its JSON is what encoding/json
// writes for the Go types of k8s.io/api (fields in declaration order,
// omitempty, maps sorted, <, > and & escaped).
//
// It is pure: no HTTP, no Kubernetes imports, only the standard library,
// so the fake API server reads and writes protobuf with it and a client
// may decode built-in kinds with it. The conversion is driven by a table
// generated from the Go types of the Kubernetes API (their protobuf and
// json struct tags): field numbers, wire types, repeated, map and
// optional-with-presence fields, and the JSON name and omitempty rule of
// each. Types with their own encodings are handled by kind: Quantity (one
// canonical string), IntOrString, Time (seconds) and MicroTime, Duration,
// RawExtension and FieldsV1 (raw JSON), []byte (base64 in JSON).
//
// The wire shapes are described in docs/api-semantics.md ("The protobuf
// wire format"): a body is Magic and a runtime.Unknown envelope naming
// apiVersion and kind around the object's message; a watch stream is
// length-prefixed WatchEvent frames whose object carries its own envelope.
//
// Input is untrusted: truncated data, lengths past the end, wrong wire
// types, deep nesting and oversized output are errors, never panics, and
// no conversion writes more than a fixed multiple of its input.
//
// Files:
//   - envelope.go: the API — Encode, Decode, EncodeMessage,
//     DecodeMessage, the runtime.Unknown envelope, watch frames, Kinds.
//   - encode.go: JSON to protobuf, by the table.
//   - decode.go: protobuf to JSON, by the table.
//   - quantity.go: the canonical form of a resource.Quantity.
//   - schema.go: the table's types and its resolution into messages.
//   - table_api.go: the table and the wire reader opened to decoders of
//     their own (MessageOf, FieldInfo, ValueJSON, ReadField).
//   - zz_generated_schema.go: the table, written by e2e/kubeproto/gen.
//   - wire.go: varints, tags and length-delimited fields, bounds-checked.
//   - jsonparse.go: a JSON parser that keeps each value's input bytes.
//   - jsonwrite.go: strings, floats and raw JSON as encoding/json writes them.
//
// The table is regenerated with go generate ./kubeproto; its generator
// lives in the e2e module so that kubecache's go.mod gains no k8s.io
// dependency. The fixtures in testdata/fixtures are written by the e2e
// module (cd e2e && go test ./kubeproto -update) from the real encoders.
package kubeproto

//go:generate sh -c "cd ../e2e && go run ./kubeproto/gen -out ../kubeproto/zz_generated_schema.go"
