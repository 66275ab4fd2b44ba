package replicaset

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/selector"
)

// Name is the controller's name: its event source and its name in
// --controllers lists.
const Name = "replicaset-controller"

// Options configure a Controller.
type Options struct {
	// Workers is how many ReplicaSets are reconciled at once; default 5,
	// kube-controller-manager's --concurrent-replicaset-syncs.
	Workers int
	// BurstReplicas caps the pods created or deleted in one reconcile;
	// default 500, as in the real controller.
	BurstReplicas int
}

// Controller is the ReplicaSet controller. Build it with New, run it
// with Run.
type Controller struct {
	env    kit.Env
	opts   Options
	loop   *kit.Loop
	rss    *informer.Informer[*api.ReplicaSet]
	pods   *informer.Informer[*api.Pod]
	expect *kit.Expectations
}

// New builds the controller on env's shared informers and registers its
// handlers. The caller runs env.Factory (and env.Events).
func New(env kit.Env, opts Options) (*Controller, error) {
	if opts.Workers == 0 {
		opts.Workers = 5
	}
	if opts.BurstReplicas == 0 {
		opts.BurstReplicas = 500
	}
	c := &Controller{opts: opts, expect: kit.NewExpectations()}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.rss = kit.Inform[*api.ReplicaSet](w, "replicasets.v1.apps")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	kit.ByController(w, c.pods)
	kit.On(w, c.rss, kit.SelfKey[*api.ReplicaSet])
	kit.OnEvents(w, c.pods, informer.HandlerFuncs[*api.Pod]{
		AddFunc:    func(p *api.Pod, _ bool) { c.podAdded(p) },
		UpdateFunc: c.podUpdated,
		DeleteFunc: func(p *api.Pod, _ bool) { c.podDeleted(p) },
	})
	return kit.Built(c, w)
}

// Run reconciles ReplicaSets until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, c.opts.Workers) }

// ownerKey returns the key of the ReplicaSet that controls p, if any.
func ownerKey(p *api.Pod) (string, bool) {
	ref := api.ControllerOf(&p.ObjectMeta)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return "", false
	}
	return p.Namespace + "/" + ref.Name, true
}

func (c *Controller) podAdded(p *api.Pod) {
	if p.DeletionTimestamp != nil {
		c.podDeleted(p) // seen for the first time already going away
		return
	}
	if key, ok := ownerKey(p); ok {
		c.expect.Created(key)
		c.loop.Add(key)
		return
	}
	if api.ControllerOf(&p.ObjectMeta) == nil {
		c.enqueueMatching(p) // an orphan: someone may adopt it
	}
}

func (c *Controller) podUpdated(old, p *api.Pod) {
	if p.DeletionTimestamp != nil && old.DeletionTimestamp == nil {
		if key, ok := ownerKey(p); ok {
			c.expect.Deleted(key, meta.Key(p))
		}
	}
	oldKey, hadOwner := ownerKey(old)
	key, hasOwner := ownerKey(p)
	if hadOwner && oldKey != key {
		c.loop.Add(oldKey)
	}
	if hasOwner {
		c.loop.Add(key)
		return
	}
	if api.ControllerOf(&p.ObjectMeta) == nil {
		c.enqueueMatching(p)
	}
}

func (c *Controller) podDeleted(p *api.Pod) {
	if key, ok := ownerKey(p); ok {
		c.expect.Deleted(key, meta.Key(p))
		c.loop.Add(key)
	}
}

// enqueueMatching queues every ReplicaSet of p's namespace whose selector
// matches p.
func (c *Controller) enqueueMatching(p *api.Pod) {
	for _, rs := range c.rss.Lister().Namespace(p.Namespace).List(selector.Everything()) {
		if !rs.Spec.Selector.Empty() && rs.Spec.Selector.Matches(p.Labels) {
			c.loop.Add(meta.Key(rs))
		}
	}
}
