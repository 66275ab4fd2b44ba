// Package kubeproto checks kubecache's protobuf codec against the
// Kubernetes API's own Go types: for every kind in the codec's table, an
// object filled by reflection is encoded by the generated gogo marshaler
// and by encoding/json, and the codec must turn each form into exactly the
// other. With -update it writes those bytes as the fixtures the main
// module's spec tests read (kubeproto/testdata/fixtures).
//
// Files (tests only):
//
//	roundtrip_test.go  every kind both ways, and the fixtures written with -update
//	fill_test.go       filling an object of any Go type by reflection
//	quantity_test.go   canonical quantities against k8s.io/apimachinery's resource.Quantity
//	generated_test.go  the checked-in table equals what gen writes now
package kubeproto
