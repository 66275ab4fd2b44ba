// Package reviewpb reads the protobuf request bodies that kubectl's typed
// clients send for the authorization reviews (kubectl auth can-i, auth
// can-i --list, auth whoami) and turns them into the JSON objects the
// fake API server handles.
//
// The fake server otherwise reads only JSON and YAML bodies; the review
// resources are the exception because kubectl gives its users no way to
// switch their content type. The package sits between the server's request
// decoding (fakeapiserver/virtual.go) and the wire.
//
//   - reviewpb.go: Decode, the kinds it knows and their field tables.
//   - wire.go: the protobuf wire format (varints, tags, length-delimited
//     fields) with bounds checks.
package reviewpb
