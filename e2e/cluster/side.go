package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	box "github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/kubelet"
	"github.com/kubecache/kubecache/e2e/internal/target"
	"github.com/kubecache/kubecache/rest"
)

// The simulated nodes, the same on both clusters.
const (
	NodeCount  = 3
	NodePrefix = "e2e-node-"
)

// AwaitTimeout bounds every wait of a scenario: long enough for a loaded
// machine, where a real controller's resync or back-off can take tens of
// seconds.
const AwaitTimeout = 3 * time.Minute

// Side is one of the clusters a scenario runs on.
type Side struct {
	// Name is "real" or "fake".
	Name string
	// Client talks to the side's API server.
	Client kubernetes.Interface
	// Namespace is the scenario's namespace, the same name on both sides.
	Namespace string
	// Rec records what the scenario observes.
	Rec *Recorder
	// Informers watch the namespace; Start them after adding handlers.
	Informers informers.SharedInformerFactory
	// events is what followEvents delivered.
	events followedEvents
}

// newSide creates the namespace on the cluster behind cs and a Side for
// it; the namespace is deleted when the test ends.
func newSide(t *testing.T, name string, cs kubernetes.Interface, ns string) *Side {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{target.NamespaceLabel: "true"}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("%s: create namespace %s: %v", name, ns, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("%s: delete namespace %s: %v", name, ns, err)
		}
	})
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	return &Side{Name: name, Client: cs, Namespace: ns, Rec: NewRecorder(), Informers: f}
}

// Start starts the informers the scenario asked for and waits until they
// have listed; they stop when the test ends.
func (s *Side) Start(t *testing.T) {
	t.Helper()
	stop := make(chan struct{})
	s.Informers.Start(stop)
	t.Cleanup(func() {
		close(stop)
		s.Informers.Shutdown()
	})
	ctx, cancel := context.WithTimeout(context.Background(), AwaitTimeout)
	defer cancel()
	for typ, ok := range s.Informers.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("%s: the %v informer did not sync within %s", s.Name, typ, AwaitTimeout)
		}
	}
}

// Await polls cond until it holds, failing the test, naming what, after
// AwaitTimeout. cond's error ends the wait at once.
func (s *Side) Await(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), AwaitTimeout)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil && ctx.Err() != nil {
			// A request cut short by the deadline is a timeout.
			last = err
			return false, nil
		}
		return ok, err
	})
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("%s: timed out after %s waiting for %s (last error: %v)", s.Name, AwaitTimeout, what, last)
	default:
		t.Fatalf("%s: waiting for %s: %v", s.Name, what, err)
	}
}

// fakeSide starts kubecache's fake API server with every controller and
// the simulated nodes, for the test.
func fakeSide(t *testing.T, ns string) *Side {
	t.Helper()
	c := box.Start(t, box.Options{
		Controllers: controllers.All,
		Nodes:       NodeCount,
		Kubelet:     kubelet.Options{NamePrefix: NodePrefix},
		RootCA:      fakeRootCA,
	})
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatalf("fake: kubeconfig: %v", err)
	}
	cfg.QPS = -1
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("fake: clientset: %v", err)
	}
	awaitNodes(t, "fake", cs)
	return newSide(t, "fake", cs, ns)
}

// fakeRootCA stands for the CA the fake server's controllers publish; only
// the ConfigMap's shape is compared.
const fakeRootCA = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"

// realSide returns the real target with the simulated nodes running as its
// client (started on first use, stopped by TestMain).
func realSide(t *testing.T, tgt *target.Target, ns string) *Side {
	t.Helper()
	cs := tgt.Clientset(t)
	realNodes.once.Do(func() { realNodes.err = realNodes.start(tgt) })
	if realNodes.err != nil {
		t.Fatalf("real: simulated nodes: %v", realNodes.err)
	}
	awaitNodes(t, "real", cs)
	return newSide(t, "real", cs, ns)
}

// realNodes are the simulated nodes on the real server, shared by the
// package's tests.
var realNodes nodes

type nodes struct {
	once   sync.Once
	err    error
	cancel context.CancelFunc
	done   chan error
	tgt    *target.Target
}

func (n *nodes) start(tgt *target.Target) error {
	cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: tgt.KubeconfigPath})
	if err != nil {
		return err
	}
	cfg.QPS = -1
	client, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	m, err := controllers.New(client, controllers.Options{Nodes: NodeCount, Kubelet: kubelet.Options{NamePrefix: NodePrefix}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel, n.done, n.tgt = cancel, make(chan error, 1), tgt
	go func() { n.done <- m.Run(ctx) }()
	return nil
}

// stop stops the simulated nodes and deletes their Nodes and Leases, so
// that nothing the package made outlives it on the server.
func (n *nodes) stop() error {
	if n.cancel == nil {
		return nil
	}
	n.cancel()
	var errs []error
	select {
	case err := <-n.done:
		errs = append(errs, err)
	case <-time.After(time.Minute):
		errs = append(errs, fmt.Errorf("the simulated nodes did not stop within a minute"))
	}
	raw, err := clientcmd.RESTConfigFromKubeConfig(n.tgt.Kubeconfig)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	cs, err := kubernetes.NewForConfig(raw)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 1; i <= NodeCount; i++ {
		name := fmt.Sprintf("%s%d", NodePrefix, i)
		if err := cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
		if err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// awaitNodes waits until every simulated node is Ready with no taint that
// keeps pods off it (a new Node starts with the not-ready taint the node
// lifecycle controller removes).
func awaitNodes(t *testing.T, side string, cs kubernetes.Interface) {
	t.Helper()
	s := &Side{Name: side}
	s.Await(t, fmt.Sprintf("%d Ready, untainted simulated nodes", NodeCount), func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, n := range list.Items {
			if len(n.Spec.Taints) == 0 && nodeReady(&n) {
				ready++
			}
		}
		return ready >= NodeCount, nil
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// runOn runs steps on the fake cluster and, when the target has a control
// plane, on the real one at the same time, then compares what both
// recorded.
func runOn(t *testing.T, scenario string, steps func(t *testing.T, s *Side)) {
	t.Helper()
	tgt := target.Get(t)
	ns := target.NewName("e2e-" + scenario)
	sides := []*Side{fakeSide(t, ns)}
	ok, why := tgt.HasControlPlane()
	if ok {
		sides = append([]*Side{realSide(t, tgt, ns)}, sides...)
	} else {
		t.Logf("the fake cluster only, nothing compared: %s", why)
	}
	t.Run("on", func(t *testing.T) {
		for _, s := range sides {
			t.Run(s.Name, func(t *testing.T) {
				t.Parallel()
				steps(t, s)
				settleEvents(t, s)
			})
		}
	})
	var real map[string][]string
	fake := sides[len(sides)-1].Rec.Sequences()
	if len(sides) == 2 {
		real = sides[0].Rec.Sequences()
	}
	if path := os.Getenv(EnvReport); path != "" {
		if err := appendReport(filepath.Clean(path), scenario, real, fake); err != nil {
			t.Errorf("report: %v", err)
		}
	}
	if real == nil || t.Failed() {
		return
	}
	for _, d := range compare(scenario, real, fake) {
		if k, ok := known.match(d); ok {
			t.Logf("known difference (%s):\n%s", k.Why, d)
			continue
		}
		t.Errorf("difference:\n%s", d)
	}
	known.ran(scenario)
}
