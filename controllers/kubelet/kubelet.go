package kubelet

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/kubecache/kubecache/informer"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/rest"
)

// Name is the event source of the simulated kubelets.
const Name = "kubelet"

// Options configure the simulated nodes.
type Options struct {
	// Nodes is how many nodes to simulate, named NamePrefix1 …
	// NamePrefixN; default 1.
	Nodes int
	// NamePrefix starts the nodes' names; default "node-".
	NamePrefix string
	// Capacity is each node's capacity (and allocatable); nil is 4 cpu,
	// 16Gi memory, 110 pods, 100Gi ephemeral storage.
	Capacity api.ResourceList
	// Labels are added to every node's own (kubernetes.io/hostname,
	// kubernetes.io/os, kubernetes.io/arch).
	Labels map[string]string
	// Rules give behaviours to pods by image; nil is DefaultRules.
	Rules []Rule
	// Workers is how many pods are advanced at once; default 10.
	Workers int
}

// Kubelet simulates the nodes. Build it with New, run it with Run.
type Kubelet struct {
	env  kit.Env
	opts Options
	loop *kit.Loop
	pods interface{ Lister() cache.Lister[*api.Pod] }
	// seen is the Nodes as the cluster shows them, to report a node's
	// status again when it is not what the node reports (heartbeat).
	seen  *informer.Informer[*api.Node]
	nodes map[string]*simNode
	logs  *logStore

	// mu guards the nodes' registered and stopped flags and the pod IP
	// counters.
	mu sync.Mutex
}

// New builds the simulated nodes on env's shared Pod informer.
func New(env kit.Env, opts Options) (*Kubelet, error) {
	env = env.WithDefaults()
	if opts.Nodes == 0 {
		opts.Nodes = 1
	}
	if opts.NamePrefix == "" {
		opts.NamePrefix = "node-"
	}
	if opts.Capacity == nil {
		opts.Capacity = api.ResourceList{"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"}
	}
	if opts.Rules == nil {
		opts.Rules = DefaultRules
	}
	if opts.Workers == 0 {
		opts.Workers = 10
	}
	k := &Kubelet{env: env, opts: opts, nodes: map[string]*simNode{}, logs: newLogStore()}
	for i := 1; i <= opts.Nodes; i++ {
		name := fmt.Sprintf("%s%d", opts.NamePrefix, i)
		k.nodes[name] = &simNode{name: name, index: i}
	}
	k.loop = kit.NewLoop(env, Name, k.syncPod)
	w := kit.Wire(env, k.loop)
	pods := kit.Inform[*api.Pod](w, "pods")
	k.pods = pods
	mine := func(p *api.Pod) []string {
		if _, ok := k.nodes[p.Spec.NodeName]; ok {
			return kit.SelfKey(p)
		}
		return nil
	}
	kit.On(w, pods, mine)
	k.seen = kit.Inform[*api.Node](w, "nodes")
	if err := w.Err(); err != nil {
		return nil, err
	}
	return k, nil
}

// NodeNames returns the simulated nodes' names.
func (k *Kubelet) NodeNames() []string {
	out := make([]string, 0, len(k.nodes))
	for i := 1; i <= k.opts.Nodes; i++ {
		out = append(out, fmt.Sprintf("%s%d", k.opts.NamePrefix, i))
	}
	return out
}

// Run runs the nodes until ctx is cancelled: each registers (a few at
// a time), then renews its Lease and checks its status on its own
// schedule, as every node of a cluster has its own kubelet; the pods of
// registered nodes are advanced meanwhile.
func (k *Kubelet) Run(ctx context.Context) error {
	// The renewals are due at fixed times from now, so a clock moved on
	// while the nodes register still triggers the first one.
	firstRenewal := k.env.Clock.Now().Add(LeaseRenewInterval)
	slots := make(chan struct{}, registerConcurrency)
	var wg sync.WaitGroup
	for _, name := range k.NodeNames() {
		n := k.nodes[name]
		wg.Go(func() { k.runNode(ctx, n, slots, firstRenewal) })
	}
	err := k.loop.Run(ctx, k.opts.Workers)
	wg.Wait()
	return err
}

// StopNode makes a node stop: no more Lease renewals, status updates or
// pod changes, as if it lost power. It returns false for an unknown node.
func (k *Kubelet) StopNode(name string) bool { return k.setStopped(name, true) }

// StartNode starts a stopped node again: it reports Ready and resumes
// its pods.
func (k *Kubelet) StartNode(ctx context.Context, name string) error {
	if !k.setStopped(name, false) {
		return fmt.Errorf("no simulated node %q", name)
	}
	n := k.nodes[name]
	if err := k.register(ctx, n); err != nil {
		return err
	}
	k.setRegistered(n)
	return nil
}

func (k *Kubelet) setStopped(name string, stopped bool) bool {
	n, ok := k.nodes[name]
	if !ok {
		return false
	}
	k.mu.Lock()
	n.stopped = stopped
	k.mu.Unlock()
	return true
}

// running reports whether n has registered and is not stopped.
func (k *Kubelet) running(n *simNode) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return n.registered && !n.stopped
}

// setRegistered marks n registered and queues the pods the cache shows
// on it, which were left alone until then.
func (k *Kubelet) setRegistered(n *simNode) {
	k.mu.Lock()
	n.registered = true
	k.mu.Unlock()
	for _, p := range k.podsOn(n.name) {
		k.loop.Add(p)
	}
}

// podsOn returns the keys of the pods the cache shows on node.
func (k *Kubelet) podsOn(node string) []string {
	var keys []string
	for _, p := range k.pods.Lister().List(everything) {
		if p.Spec.NodeName == node {
			keys = append(keys, p.Namespace+"/"+p.Name)
		}
	}
	return keys
}

// syncPod advances one pod of a running node.
func (k *Kubelet) syncPod(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	p, err := k.pods.Lister().Namespace(ns).Get(name)
	if err != nil {
		return nil
	}
	n := k.nodes[p.Spec.NodeName]
	if n == nil || !k.running(n) {
		return nil
	}
	now := k.env.Clock.Now()
	if p.DeletionTimestamp != nil {
		return k.terminate(ctx, key, p, now)
	}
	if api.IsPodTerminal(p) {
		return nil
	}
	b := behaviourOf(p, k.opts.Rules)
	st, next := advance(p, b, now, k.addresses(n, p))
	if !reflect.DeepEqual(st, p.Status) {
		k.logTransitions(p, st)
		err := kit.PutStatus(ctx, k.env.Client, kit.Target{Resource: "pods"}, "v1", "Pod", &p.ObjectMeta, st, nil)
		if err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	if !next.IsZero() {
		k.loop.AddAt(key, next)
	}
	return nil
}
