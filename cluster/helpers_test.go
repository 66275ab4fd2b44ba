package cluster_test

import "github.com/kubecache/kubecache/controllers/kubelet"

// kubeletOptions gives the benchmark's nodes room for 10,000 pods.
func kubeletOptions() kubelet.Options {
	return kubelet.Options{Capacity: map[string]string{"cpu": "32", "memory": "128Gi", "pods": "250"}}
}
