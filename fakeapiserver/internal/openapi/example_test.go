package openapi_test

import (
	"encoding/json"
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// The document of one group version tells kubectl that PATCH takes
// fieldValidation, and how the lists of the kind merge.
func Example() {
	res := []openapi.Resource{{Version: "v1", Plural: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "patch"}}}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any
			}
		}
	}
	_ = json.Unmarshal(openapi.GroupVersion("", "v1", res, openapi.Builtin()), &doc)
	var patch struct {
		GVK map[string]string `json:"x-kubernetes-group-version-kind"`
	}
	_ = json.Unmarshal(doc.Paths["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"], &patch)
	fmt.Println(patch.GVK["kind"])
	c := doc.Components.Schemas["io.k8s.api.core.v1.PodSpec"].Properties["containers"]
	fmt.Println(c["x-kubernetes-patch-strategy"], c["x-kubernetes-patch-merge-key"])
	// Output:
	// Pod
	// merge name
}
