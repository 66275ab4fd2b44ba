package cluster_test

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/rest"
)

// rolloutSize, when set, is the one size BenchmarkRollout runs.
var rolloutSize = flag.Int("rollout.size", 0, "BenchmarkRollout: run only this many nodes and Deployments of 100 pods each (100: 10,000 pods)")

// rolloutTimeout bounds one rollout: 10,000 pods on a loaded 2-core
// machine take minutes.
const rolloutTimeout = 30 * time.Minute

// BenchmarkRollout measures a cluster in a box bringing up Deployments:
// N simulated nodes and N Deployments of 100 pods each, created at once
// once the nodes are Ready; the time until every Deployment reports all
// its replicas updated and available. The fake API server runs in a
// process of its own, so the CPU and heap of the controllers and nodes
// (this process) and of the server are reported apart: ctl-cpu-s and
// srv-cpu-s are the CPU each used during the rollout, ctl-heap-MiB and
// srv-heap-MiB the heap each holds at its end.
//
//	go test -run '^$' -bench Rollout -benchtime 1x ./cluster/
//	go test -run '^$' -bench Rollout -benchtime 1x ./cluster/ -args -rollout.size=100
//
// Sizes: N = 10 and 30 by default; -rollout.size=100 runs 100 nodes and
// 10,000 pods alone.
func BenchmarkRollout(b *testing.B) {
	sizes := []int{10, 30}
	if *rolloutSize > 0 {
		sizes = []int{*rolloutSize}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("%dx100", n), func(b *testing.B) {
			for range b.N {
				rollout(b, n, n, 100)
			}
		})
	}
}

func rollout(b *testing.B, nodes, deployments, replicas int) {
	srv := startServerProcess(b)
	client, err := rest.NewClient(&rest.Config{Host: srv.url, QPS: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(client.CloseIdleConnections)
	m, err := controllers.New(client, controllers.Options{Controllers: controllers.All, Nodes: nodes, Kubelet: kubeletOptions()})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("controllers: %v", err)
		}
	})
	c := &cluster.Cluster{Client: client, Manager: m, Kubelet: m.Kubelet, AwaitTimeout: rolloutTimeout}
	cluster.Await(b, c, "nodes", "nodes ready and untainted", func(ns []*api.Node) bool {
		if len(ns) != nodes {
			return false
		}
		for _, n := range ns {
			if !api.IsNodeReady(n) || len(n.Spec.Taints) > 0 {
				return false
			}
		}
		return true
	})

	srvBefore := srv.ask(b, "cpu")
	before := processCPU()
	start := time.Now()
	for i := range deployments {
		if err := kit.Create(ctx, client, kit.Target{Group: "apps", Version: "v1", Resource: "deployments", Namespace: "default"}, deployment(fmt.Sprintf("app-%d", i), replicas), nil); err != nil {
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
	cpu := processCPU() - before
	srvCPU := time.Duration(srv.ask(b, "cpu") - srvBefore)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(elapsed.Seconds(), "s-to-ready")
	b.ReportMetric(float64(deployments*replicas)/elapsed.Seconds(), "pods/s")
	b.ReportMetric(cpu.Seconds(), "ctl-cpu-s")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "ctl-heap-MiB")
	b.ReportMetric(srvCPU.Seconds(), "srv-cpu-s")
	b.ReportMetric(float64(srv.ask(b, "heap"))/(1<<20), "srv-heap-MiB")
}

// deployment is a Deployment of replicas nginx pods asking for a little
// cpu and memory each.
func deployment(name string, replicas int) map[string]any {
	return map[string]any{
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
}
