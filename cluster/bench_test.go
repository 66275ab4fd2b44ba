package cluster_test

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/fakeapiserver"
)

// BenchmarkRollout measures a cluster in a box bringing up Deployments:
// nodes simulated nodes, deployments Deployments of replicas pods each,
// created at once; the time until every Deployment reports all its
// replicas available. It reports the process's CPU time and heap
// (server and controllers together, in one process) besides ns/op.
//
//	go test -run '^$' -bench Rollout/10x100 -benchtime 1x ./cluster/
//
// Sizes: 10 nodes and 10 Deployments of 100; 30 and 30; 100 and 100
// (10,000 pods).
func BenchmarkRollout(b *testing.B) {
	for _, sz := range []struct{ nodes, deployments, replicas int }{{10, 10, 100}, {30, 30, 100}, {100, 100, 100}} {
		b.Run(fmt.Sprintf("%dx%d", sz.deployments, sz.replicas), func(b *testing.B) {
			for range b.N {
				rollout(b, sz.nodes, sz.deployments, sz.replicas)
			}
		})
	}
}

func rollout(b *testing.B, nodes, deployments, replicas int) {
	opts := cluster.Options{
		Server:      fakeapiserver.Options{HistoryLimit: 200000, WatchQueueLength: 100000},
		Controllers: controllers.All,
		Nodes:       nodes,
		Kubelet:     kubeletOptions(),
	}
	c := cluster.Start(b, opts)
	cluster.Await(b, c, "nodes", "nodes ready", func(ns []*api.Node) bool { return len(ns) == nodes })
	ctx := context.Background()
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	for i := range deployments {
		name := fmt.Sprintf("app-%d", i)
		d := map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name, "namespace": "default"},
			"spec": map[string]any{
				"replicas": replicas,
				"selector": map[string]any{"matchLabels": map[string]string{"app": name}},
				"template": map[string]any{
					"metadata": map[string]any{"labels": map[string]string{"app": name}},
					"spec": map[string]any{"containers": []map[string]any{{"name": "web", "image": "nginx",
						"resources": map[string]any{"requests": map[string]string{"cpu": "10m", "memory": "16Mi"}}}}},
				},
			},
		}
		if err := kit.Create(ctx, c.Client, kit.Target{Group: "apps", Version: "v1", Resource: "deployments", Namespace: "default"}, d, nil); err != nil {
			b.Fatal(err)
		}
	}
	cluster.Await(b, c, "deployments.v1.apps", "all available", func(ds []*api.Deployment) bool {
		if len(ds) != deployments {
			return false
		}
		for _, d := range ds {
			if d.Status.AvailableReplicas != int32(replicas) || d.Status.UpdatedReplicas != int32(replicas) {
				return false
			}
		}
		return true
	})
	elapsed := time.Since(start)
	var after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(elapsed.Seconds(), "s-to-ready")
	b.ReportMetric(cpu.Seconds(), "cpu-s")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(deployments*replicas)/elapsed.Seconds(), "pods/s")
}
