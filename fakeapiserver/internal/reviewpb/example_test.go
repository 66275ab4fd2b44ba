package reviewpb_test

import (
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver/internal/reviewpb"
)

// A SelfSubjectRulesReview for namespace "other", as kubectl auth can-i
// --list sends it, becomes its JSON object.
func ExampleDecode() {
	body := []byte("k8s\x00" +
		"\x0a\x31" + // typeMeta
		"\x0a\x17authorization.k8s.io/v1" +
		"\x12\x16SelfSubjectRulesReview" +
		"\x12\x09" + // raw
		"\x12\x07\x0a\x05other") // spec.namespace
	out, err := reviewpb.Decode(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","metadata":{},"spec":{"namespace":"other"}}
}
