package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// Name is the controller's name, the source of its node events.
const Name = "node-controller"

// Options configure a Controller.
type Options struct {
	// GracePeriod is how long a node's Lease may go unrenewed before the
	// node is unreachable; default 50 s.
	GracePeriod time.Duration
}

// Controller watches node health and evicts pods from tainted nodes.
type Controller struct {
	env    kit.Env
	opts   Options
	loop   *kit.Loop
	nodes  *informer.Informer[*api.Node]
	leases *informer.Informer[*api.Lease]
	pods   *informer.Informer[*api.Pod]
}

// podsByNode indexes pods by spec.nodeName.
const podsByNode = "kubecache.dev/pod-node"

// New builds the controller on env's shared informers.
func New(env kit.Env, opts Options) (*Controller, error) {
	if opts.GracePeriod == 0 {
		opts.GracePeriod = 50 * time.Second
	}
	c := &Controller{opts: opts}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.nodes = kit.Inform[*api.Node](w, "nodes")
	c.leases = kit.Inform[*api.Lease](w, "leases.v1.coordination.k8s.io")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	w.Step(func() error {
		err := c.pods.Indexer().AddIndexers(cache.Indexers[*api.Pod]{podsByNode: func(p *api.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }})
		if errors.Is(err, cache.ErrIndexExists) {
			return nil
		}
		return err
	})
	nodeKey := func(n *api.Node) []string { return []string{n.Name} }
	leaseKey := func(l *api.Lease) []string {
		if l.Namespace == api.NodeLeaseNamespace {
			return []string{l.Name}
		}
		return nil
	}
	podKey := func(p *api.Pod) []string {
		if p.Spec.NodeName != "" {
			return []string{p.Spec.NodeName}
		}
		return nil
	}
	kit.On(w, c.nodes, nodeKey)
	kit.On(w, c.leases, leaseKey)
	kit.On(w, c.pods, podKey)
	return kit.Built(c, w)
}

// Run watches nodes until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 2) }

// sync brings one node's conditions and taints in line with its Lease,
// then evicts what its taints say.
func (c *Controller) sync(ctx context.Context, name string) error {
	n, err := c.nodes.Lister().Get(name)
	if err != nil {
		return nil
	}
	now := c.env.Clock.Now()
	node, err := meta.Clone(n)
	if err != nil {
		return err
	}
	if renewed, ok := c.lastRenewal(name); ok {
		if expires := renewed.Add(c.opts.GracePeriod); now.Before(expires) {
			c.loop.AddAt(name, expires.Add(time.Millisecond))
		} else if err := c.markUnknown(ctx, node, now); err != nil {
			return err
		}
	}
	if err := c.syncTaints(ctx, node, now); err != nil {
		return err
	}
	return c.evict(ctx, node, now)
}

// lastRenewal returns when the node's Lease was last renewed.
func (c *Controller) lastRenewal(name string) (time.Time, bool) {
	l, err := c.leases.Lister().Namespace(api.NodeLeaseNamespace).Get(name)
	if err != nil || l.Spec.RenewTime == nil {
		return time.Time{}, false
	}
	return l.Spec.RenewTime.Time, true
}

// markUnknown sets every condition of a node that stopped reporting to
// Unknown, as the real controller does.
func (c *Controller) markUnknown(ctx context.Context, node *api.Node, now time.Time) error {
	if r := node.Status.Condition(api.NodeReady); r != nil && r.Status == api.ConditionUnknown {
		return nil
	}
	st := node.Status
	st.Conditions = slices.Clone(node.Status.Conditions)
	for i := range st.Conditions {
		cond := &st.Conditions[i]
		if cond.Status != api.ConditionUnknown {
			cond.LastTransitionTime = meta.NewTime(now)
		}
		cond.Status, cond.Reason, cond.Message = api.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
	}
	var out api.Node
	if err := kit.PutStatus(ctx, c.env.Client, kit.Target{Resource: "nodes"}, "v1", "Node", &node.ObjectMeta, st, &out); err != nil {
		return err
	}
	*node = out
	c.env.Events.Eventf(kit.Source{Component: Name}, api.ObjectReference{Kind: "Node", Name: node.Name, UID: node.UID, APIVersion: "v1"},
		api.EventNormal, "NodeNotReady", "Node %s status is now: NodeNotReady", node.Name)
	return nil
}

// syncTaints gives a node the not-ready or unreachable taints its Ready
// condition calls for, and removes them when it is Ready.
func (c *Controller) syncTaints(ctx context.Context, node *api.Node, now time.Time) error {
	var want string
	if r := node.Status.Condition(api.NodeReady); r != nil {
		switch r.Status {
		case api.ConditionFalse:
			want = api.TaintNodeNotReady
		case api.ConditionUnknown:
			want = api.TaintNodeUnreachable
		}
	}
	var taints []api.Taint
	changed := false
	for _, t := range node.Spec.Taints {
		if (t.Key == api.TaintNodeNotReady || t.Key == api.TaintNodeUnreachable) && t.Key != want {
			changed = true
			continue
		}
		taints = append(taints, t)
	}
	if want != "" {
		for _, effect := range []string{api.TaintNoSchedule, api.TaintNoExecute} {
			if !slices.ContainsFunc(taints, func(t api.Taint) bool { return t.Key == want && t.Effect == effect }) {
				at := meta.NewTime(now)
				taints = append(taints, api.Taint{Key: want, Effect: effect, TimeAdded: &at})
				changed = true
			}
		}
	}
	if !changed {
		return nil
	}
	var list any = taints
	if len(taints) == 0 {
		list = nil
	}
	patch := map[string]any{"metadata": map[string]any{"resourceVersion": node.ResourceVersion}, "spec": map[string]any{"taints": list}}
	var out api.Node
	if err := kit.MergePatch(ctx, c.env.Client, kit.Target{Resource: "nodes", Name: node.Name}, "", patch, &out); err != nil {
		if rest.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("taint node %s: %w", node.Name, err)
	}
	*node = out
	return nil
}
