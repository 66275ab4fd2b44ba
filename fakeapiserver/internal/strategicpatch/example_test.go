package strategicpatch_test

import (
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/strategicpatch"
)

// A strategic merge patch changes one container of a Deployment, adds an
// environment variable and removes a finalizer; the other container and
// variables stay.
func Example() {
	original := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","finalizers":["a","b"]},
"spec":{"template":{"spec":{"containers":[
  {"name":"app","image":"app:1","env":[{"name":"MODE","value":"fast"}]},
  {"name":"proxy","image":"proxy:1"}]}}}}`)
	patch := []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]},
"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2","env":[{"name":"DEBUG","value":"1"}]}]}}}}`)

	schema, _ := strategicpatch.ForKind(openapi.Builtin(), openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"})
	out, err := strategicpatch.Apply(original, patch, schema)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","finalizers":["b"]},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2","env":[{"name":"DEBUG","value":"1"},{"name":"MODE","value":"fast"}]},{"name":"proxy","image":"proxy:1"}]}}}}
}
