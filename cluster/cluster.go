package cluster

import (
	"context"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/kubelet"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/rest"
)

// Options say what a cluster runs.
type Options struct {
	// Server configures the fake API server. Its Clock, when set, is the
	// controllers' and nodes' clock too. Without the node lifecycle
	// controller among Controllers, Server.NoNodeTaint is set: new Nodes
	// get no not-ready taint, as nothing would remove it.
	Server fakeapiserver.Options
	// Controllers names the controllers to run (controllers.All for
	// every one); none when empty, so a test of one controller sees only
	// its writes.
	Controllers []string
	// Nodes is how many simulated nodes to run.
	Nodes int
	// Kubelet configures the simulated nodes.
	Kubelet kubelet.Options
	// RootCA, when set, is the PEM bundle the serviceaccount controller
	// publishes in every namespace as the kube-root-ca.crt ConfigMap, as a
	// real controller manager publishes the apiserver's CA; empty
	// publishes none.
	RootCA string
}

// Cluster is a running cluster in a box.
type Cluster struct {
	// Server is the fake API server.
	Server *fakeapiserver.Server
	// Client talks to it, without rate limits.
	Client *rest.Client
	// Kubeconfig is the path of a kubeconfig file for it (for kubectl).
	Kubeconfig string
	// Manager runs the controllers and nodes.
	Manager *controllers.Manager
	// Kubelet is the simulated nodes, nil without nodes.
	Kubelet *kubelet.Kubelet
	// AwaitTimeout bounds each Await on the cluster; zero is the
	// package's AwaitTimeout. A test that waits for thousands of pods
	// sets more.
	AwaitTimeout time.Duration
}

// Start starts a fake API server and the controllers and nodes opts asks
// for; everything stops when the test ends (the controllers first).
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	// The server answers pods/log from the simulated nodes, which start
	// after it.
	var nodes atomic.Pointer[kubelet.Kubelet]
	if opts.Server.PodLogs == nil {
		opts.Server.PodLogs = func(namespace, pod, container string) ([]byte, bool) {
			if k := nodes.Load(); k != nil {
				return k.LogText(namespace, pod, container)
			}
			return nil, false
		}
	}
	if !slices.Contains(opts.Controllers, controllers.NodeLifecycle) {
		// Nothing would remove the not-ready taint a new Node gets.
		opts.Server.NoNodeTaint = true
	}
	srv := fakeapiserver.NewForTest(t, opts.Server)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := srv.WriteKubeconfig(path); err != nil {
		t.Fatalf("write kubeconfig: %v", err)
	}
	client, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(client.CloseIdleConnections)
	mo := controllers.Options{Controllers: opts.Controllers, Nodes: opts.Nodes, Kubelet: opts.Kubelet, RootCA: opts.RootCA}
	if opts.Server.Clock != nil {
		mo.Clock = ServerClock{C: opts.Server.Clock}
	}
	m, err := controllers.New(client, mo)
	if err != nil {
		t.Fatalf("controllers: %v", err)
	}
	if m.Kubelet != nil {
		nodes.Store(m.Kubelet)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("controllers: %v", err)
		}
	})
	return &Cluster{Server: srv, Client: client, Kubeconfig: path, Manager: m, Kubelet: m.Kubelet}
}
