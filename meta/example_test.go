package meta_test

import (
	"encoding/json"
	"fmt"

	"github.com/kubecache/kubecache/meta"
)

// Pod declares only the parts of a pod this program needs. Embedding
// meta.TypeMeta with `json:",inline"` and meta.ObjectMeta with
// `json:"metadata"` makes *Pod a meta.Object that the cache can key
// (namespace/name) and track (resourceVersion). Fields left out are
// skipped when decoding, and cost no memory.
type Pod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            PodSpec   `json:"spec"`
	Status          PodStatus `json:"status"`
}

// PodSpec holds the pod's wanted state, reduced to what is used here.
type PodSpec struct {
	NodeName   string      `json:"nodeName,omitempty"`
	Containers []Container `json:"containers"`
}

// Container is one container of a pod.
type Container struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

// PodStatus holds the pod's observed state, reduced to its phase.
type PodStatus struct {
	Phase string `json:"phase,omitempty"`
}

// Declaring a type: embed TypeMeta inline and ObjectMeta as "metadata",
// check the declaration once, and decode with meta.Decode.
func Example() {
	// CheckType catches the declaration mistakes that would make metadata
	// decode as empty; the cache runs it too.
	if err := meta.CheckType[*Pod](); err != nil {
		panic(err)
	}

	data := []byte(`{"kind":"Pod","apiVersion":"v1",
	  "metadata":{"name":"web-1","namespace":"shop","resourceVersion":"42","labels":{"app":"web"}},
	  "spec":{"nodeName":"worker-3","containers":[{"name":"web","image":"nginx:1.27"}]},
	  "status":{"phase":"Running","podIP":"10.0.0.7"}}`)
	pod, err := meta.Decode[*Pod](data)
	if err != nil {
		panic(err)
	}
	fmt.Println(meta.Key(pod), pod.ResourceVersion, pod.Labels["app"])
	fmt.Println(pod.Spec.NodeName, pod.Spec.Containers[0].Image, pod.Status.Phase)

	// *Pod satisfies meta.Object through the embedded fields.
	var obj meta.Object = pod
	fmt.Println(obj.GetObjectMeta().Name, obj.GetTypeMeta().Kind)
	// Output:
	// shop/web-1 42 web
	// worker-3 nginx:1.27 Running
	// web-1 Pod
}

// Unstructured holds any object, here a custom resource, without a Go type:
// metadata is decoded, the rest is kept as JSON and read on demand.
func ExampleUnstructured() {
	data := []byte(`{"apiVersion":"shop.example.com/v1","kind":"Cart",
	  "metadata":{"name":"c1","namespace":"shop","resourceVersion":"7"},
	  "spec":{"items":[{"sku":"A-1","qty":2}],"total":9223372036854775807}}`)
	u, err := meta.Decode[*meta.Unstructured](data)
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Kind, meta.Key(u), u.ResourceVersion)

	sku, _ := u.FieldString("spec", "items", "0", "sku")
	total, _ := u.Field("spec", "total") // a json.Number: no float64 rounding
	fmt.Println(sku, total)

	// Changes to metadata, through setters or fields, show when encoding.
	u.SetLabels(map[string]string{"tier": "gold"})
	if err := u.SetField("shipped", "status", "phase"); err != nil {
		panic(err)
	}
	out, err := json.Marshal(u)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output:
	// Cart shop/c1 7
	// A-1 9223372036854775807
	// {"kind":"Cart","apiVersion":"shop.example.com/v1","metadata":{"name":"c1","namespace":"shop","resourceVersion":"7","labels":{"tier":"gold"}},"spec":{"items":[{"sku":"A-1","qty":2}],"total":9223372036854775807},"status":{"phase":"shipped"}}
}

// PeekMeta reads the identity of an object without decoding it.
func ExamplePeekMeta() {
	p, err := meta.PeekMeta([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","namespace":"default","resourceVersion":"12","uid":"u-1"},"data":{"k":"v"}}`))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %s %s/%s rv=%s\n", p.APIVersion, p.Kind, p.Namespace, p.Name, p.ResourceVersion)
	// Output:
	// v1 ConfigMap default/cfg rv=12
}

// Objects from a cache are shared; clone one before changing it.
func ExampleClone() {
	shared := &Pod{ObjectMeta: meta.ObjectMeta{Name: "web-1", Labels: map[string]string{"app": "web"}}}
	mine, err := meta.Clone(shared)
	if err != nil {
		panic(err)
	}
	mine.Labels["app"] = "changed"
	fmt.Println(shared.Labels["app"], mine.Labels["app"])
	// Output:
	// web changed
}
