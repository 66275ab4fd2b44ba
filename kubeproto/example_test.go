package kubeproto_test

import (
	"fmt"

	"github.com/kubecache/kubecache/kubeproto"
)

// A ConfigMap's JSON becomes the protobuf body a real server writes, and
// back: maps come out in key order, as encoding/json writes them.
func Example() {
	body, err := kubeproto.Encode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"demo"},"data":{"b":"2","a":"1"}}`))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", body[:4])
	js, err := kubeproto.Decode(body)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(js))
	// Output:
	// "k8s\x00"
	// {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"demo"},"data":{"a":"1","b":"2"}}
}
