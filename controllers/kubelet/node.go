package kubelet

import (
	"context"
	"errors"
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

// KubeletVersion is the version the simulated nodes report.
const KubeletVersion = "v1.37.2"

var everything = selector.Everything()

// simNode is one simulated node.
type simNode struct {
	name  string
	index int
	// stopped and nextIP are guarded by Kubelet.mu.
	stopped bool
	nextIP  int
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

// registerAll creates (or brings up to date) every node and its Lease.
func (k *Kubelet) registerAll(ctx context.Context) error {
	var errs []error
	for _, name := range k.NodeNames() {
		errs = append(errs, k.register(ctx, k.nodes[name]))
	}
	return errors.Join(errs...)
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

// renewLeases renews every running node's Lease at next and every
// LeaseRenewInterval of the cluster's clock after, until ctx ends.
func (k *Kubelet) renewLeases(ctx context.Context, next time.Time) {
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
		for _, name := range k.NodeNames() {
			n := k.nodes[name]
			if !k.running(n) {
				continue
			}
			if err := k.renewLease(ctx, n, nil); err != nil && ctx.Err() == nil {
				k.loop.Logger().Info("renew lease", "node", name, "err", err)
			}
		}
	}
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
