package bench_test

import (
	"fmt"
	"os"

	"github.com/kubecache/kubecache/bench"
	"github.com/kubecache/kubecache/meta"
)

// The benchmarks' typed Pod keeps only what a controller reads; the rest
// of the 5 KB pod is checked and skipped.
func Example() {
	data, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	pod, err := meta.Decode[*bench.Pod](data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(meta.Key(pod), pod.Status.Phase, len(pod.Spec.Containers), "container(s)")
	// Output: production/web-7d9f8c6b5-x2k4q Running 1 container(s)
}
