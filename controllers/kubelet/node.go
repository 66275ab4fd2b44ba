package kubelet

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer/leaderelection"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// Lease timing of a node: the kubelet's 40 s lease, renewed every
// quarter of it.
const (
	LeaseDurationSeconds = 40
	LeaseRenewInterval   = 10 * time.Second
)

// registerConcurrency is how many nodes register at once. Each
// registration is four requests; a hundred nodes sending theirs at
// once would queue ahead of every controller's writes, and one at a
// time would leave the last node unregistered for a hundred round trips.
const registerConcurrency = 8

// KubeletVersion is the version the simulated nodes report.
const KubeletVersion = "v1.37.2"

var everything = selector.Everything()

// simNode is one simulated node.
type simNode struct {
	name  string
	index int
	// registered, stopped and nextIP are guarded by Kubelet.mu.
	registered bool
	stopped    bool
	nextIP     int
}

// ip returns the node's InternalIP: 10.0.<index/250>.<index%250+1>.
func (n *simNode) ip() string { return fmt.Sprintf("10.0.%d.%d", n.index/250, n.index%250+1) }

// addresses returns the host IP and a pod IP for p (a new one the first
// time; the pod keeps its IP in its status afterwards).
func (k *Kubelet) addresses(n *simNode, p *api.Pod) addresses {
	if p.Status.PodIP != "" {
		return addresses{hostIP: n.ip(), podIP: p.Status.PodIP}
	}
	k.mu.Lock()
	n.nextIP++
	i := n.nextIP
	k.mu.Unlock()
	return addresses{hostIP: n.ip(), podIP: fmt.Sprintf("10.%d.%d.%d", 64+n.index/256, n.index%256, i%254+1)}
}

// nodeObject is the Node a simulated node registers.
func (k *Kubelet) nodeObject(n *simNode) *api.Node {
	labels := map[string]string{
		"kubernetes.io/hostname": n.name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
	}
	maps.Copy(labels, k.opts.Labels)
	return &api.Node{
		TypeMeta:   meta.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: meta.ObjectMeta{Name: n.name, Labels: labels, Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"}},
		Spec:       api.NodeSpec{PodCIDR: fmt.Sprintf("10.%d.%d.0/24", 64+n.index/256, n.index%256), PodCIDRs: []string{fmt.Sprintf("10.%d.%d.0/24", 64+n.index/256, n.index%256)}, ProviderID: "kubecache://" + n.name},
	}
}

// nodeStatus is a healthy node's status at now.
func (k *Kubelet) nodeStatus(n *simNode, now time.Time) api.NodeStatus {
	t := meta.NewTime(now)
	cond := func(typ, status, reason, msg string) api.NodeCondition {
		return api.NodeCondition{Type: typ, Status: api.ConditionStatus(status), LastHeartbeatTime: t, LastTransitionTime: t, Reason: reason, Message: msg}
	}
	st := api.NodeStatus{
		Capacity:    maps.Clone(k.opts.Capacity),
		Allocatable: maps.Clone(k.opts.Capacity),
		Conditions: []api.NodeCondition{
			cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			cond(api.NodeReady, "True", "KubeletReady", "kubelet is posting ready status"),
		},
		Addresses: []api.NodeAddress{{Type: "InternalIP", Address: n.ip()}, {Type: "Hostname", Address: n.name}},
		NodeInfo: api.NodeSystemInfo{
			MachineID: n.name, SystemUUID: n.name, BootID: n.name, KernelVersion: "6.8.0-kubecache",
			OSImage: "kubecache simulated node", ContainerRuntimeVersion: "containerd://2.1.0",
			KubeletVersion: KubeletVersion, OperatingSystem: "linux", Architecture: "amd64",
		},
	}
	st.DaemonEndpoints = &api.NodeDaemonEndpoints{}
	st.DaemonEndpoints.KubeletEndpoint.Port = 10250
	return st
}

// register creates n's Node if it is missing, writes its Ready status,
// and renews its Lease.
func (k *Kubelet) register(ctx context.Context, n *simNode) error {
	t := kit.Target{Resource: "nodes", Name: n.name}
	var cur api.Node
	err := kit.Create(ctx, k.env.Client, t, k.nodeObject(n), &cur)
	if rest.IsAlreadyExists(err) {
		err = k.env.Client.Get().Resource("nodes").Name(n.name).Do(ctx).Into(&cur)
	}
	if err != nil {
		return fmt.Errorf("register node %s: %w", n.name, err)
	}
	// A patch of the status, as a real kubelet writes it, carries no
	// resourceVersion: the node lifecycle controller taking the
	// not-ready taint off meanwhile is no conflict.
	patch := map[string]any{"status": k.nodeStatus(n, k.env.Clock.Now())}
	if err := kit.MergePatch(ctx, k.env.Client, t, "status", patch, nil); err != nil {
		return fmt.Errorf("node %s status: %w", n.name, err)
	}
	return k.renewLease(ctx, n, &cur)
}

// Registration retries: a failed registration is tried again after
// a back-off doubling from registerRetryMin to registerRetryMax on the
// wall clock (a real kubelet's figures), as a failed request is no
// event of the cluster's time.
const (
	registerRetryMin = 100 * time.Millisecond
	registerRetryMax = 7 * time.Second
)

// runNode registers n, then, at first and every LeaseRenewInterval of
// the cluster's clock after, renews its Lease and reports its status
// again if the cluster shows it other than Ready (heartbeat), until ctx
// ends.
func (k *Kubelet) runNode(ctx context.Context, n *simNode, slots chan struct{}, first time.Time) {
	if !k.registerRetrying(ctx, n, slots) {
		return
	}
	next := first
	for {
		tick, stop := k.env.Clock.NewTimer(next.Sub(k.env.Clock.Now()))
		select {
		case <-ctx.Done():
			stop()
			return
		case <-tick:
		}
		next = next.Add(LeaseRenewInterval)
		if now := k.env.Clock.Now(); next.Before(now) {
			next = now // a clock moved far ahead: renew once, not once per missed interval
		}
		if !k.running(n) {
			continue
		}
		if err := k.renewLease(ctx, n, nil); err != nil && ctx.Err() == nil {
			k.loop.Logger().Info("renew lease", "node", n.name, "err", err)
		}
		if err := k.heartbeat(ctx, n); err != nil && ctx.Err() == nil {
			k.loop.Logger().Info("node status", "node", n.name, "err", err)
		}
	}
}

// registerRetrying registers n, holding one of slots while it does, and
// retries until it succeeds (true) or ctx ends (false).
func (k *Kubelet) registerRetrying(ctx context.Context, n *simNode, slots chan struct{}) bool {
	for wait := registerRetryMin; ; wait = min(2*wait, registerRetryMax) {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return false
		}
		err := k.register(ctx, n)
		<-slots
		if err == nil {
			k.setRegistered(n)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		k.loop.Logger().Info("register node; retrying", "node", n.name, "err", err, "after", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// heartbeat writes n's Ready status again when the cluster shows the
// node otherwise: the node lifecycle controller marks a node whose Lease
// was renewed late Unknown, and a real kubelet's next status update
// (every 10 s) reports it Ready again, which lifts the taints. A node
// the cache does not show yet is left for the next beat.
func (k *Kubelet) heartbeat(ctx context.Context, n *simNode) error {
	node, err := k.seen.Lister().Get(n.name)
	if err != nil || api.IsNodeReady(node) {
		return nil
	}
	patch := map[string]any{"status": k.nodeStatus(n, k.env.Clock.Now())}
	err = kit.MergePatch(ctx, k.env.Client, kit.Target{Resource: "nodes", Name: n.name}, "status", patch, nil)
	if rest.IsNotFound(err) {
		return nil
	}
	return err
}

// renewLease writes n's Lease with renewTime now, creating it (owned by
// the Node, when node is known) if it is missing.
func (k *Kubelet) renewLease(ctx context.Context, n *simNode, node *api.Node) error {
	now := leaderelection.NewMicroTime(k.env.Clock.Now())
	t := kit.Target{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Namespace: api.NodeLeaseNamespace, Name: n.name}
	patch := map[string]any{"spec": map[string]any{"renewTime": now, "holderIdentity": n.name, "leaseDurationSeconds": LeaseDurationSeconds}}
	err := kit.MergePatch(ctx, k.env.Client, t, "", patch, nil)
	if !rest.IsNotFound(err) {
		return err
	}
	holder, dur := n.name, int32(LeaseDurationSeconds)
	lease := &api.Lease{
		TypeMeta:   meta.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: meta.ObjectMeta{Name: n.name, Namespace: api.NodeLeaseNamespace},
		Spec:       leaderelection.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, RenewTime: now},
	}
	if node != nil {
		lease.OwnerReferences = []meta.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}
	}
	err = kit.Create(ctx, k.env.Client, t, lease, nil)
	if rest.IsAlreadyExists(err) {
		return nil
	}
	return err
}
