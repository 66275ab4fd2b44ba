package disruption

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// Name is the controller's name in logs.
const Name = "disruption-controller"

// component is the source of the controller's events, as the real
// controller names itself.
const component = "controllermanager"

// DeletionTimeout is how long a pod an eviction recorded in a budget's
// disruptedPods stays counted as disrupted without being seen to be
// deleted; past it the entry is dropped and the pod counts again.
const DeletionTimeout = 2 * time.Minute

// StalePodDisruptionTimeout is how long a pod may carry a True
// DisruptionTarget condition without being deleted before the controller
// sets the condition False.
const StalePodDisruptionTimeout = 2 * time.Minute

// Controller is the disruption controller. Build it with New, run it
// with Run.
type Controller struct {
	env kit.Env
	// budgets reconciles PodDisruptionBudget keys; stale reconciles pod
	// keys whose DisruptionTarget condition may have gone stale.
	budgets, stale *kit.Loop

	pdbs *informer.Informer[*api.PodDisruptionBudget]
	pods *informer.Informer[*api.Pod]
	rcs  *informer.Informer[*api.ReplicationController]
	rss  *informer.Informer[*api.ReplicaSet]
	deps *informer.Informer[*api.Deployment]
	sets *informer.Informer[*api.StatefulSet]

	// mu guards discovery, the server's resources as last discovered,
	// for owners of kinds without an informer here (their scale
	// subresource is read).
	mu        sync.Mutex
	discovery *rest.Discovery
}

// New builds the controller on env's shared informers and registers its
// handlers. The caller runs env.Factory (and env.Events).
func New(env kit.Env) (*Controller, error) {
	c := &Controller{}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.budgets = w.Env(), w.Loop()
	c.stale = kit.NewLoop(c.env, Name+"-stale-pods", c.syncStalePod)
	c.pdbs = kit.Inform[*api.PodDisruptionBudget](w, "poddisruptionbudgets.v1.policy")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	c.rcs = kit.Inform[*api.ReplicationController](w, "replicationcontrollers")
	c.rss = kit.Inform[*api.ReplicaSet](w, "replicasets.v1.apps")
	c.deps = kit.Inform[*api.Deployment](w, "deployments.v1.apps")
	c.sets = kit.Inform[*api.StatefulSet](w, "statefulsets.v1.apps")
	kit.On(w, c.pdbs, kit.SelfKey[*api.PodDisruptionBudget])
	kit.OnEvents(w, c.pods, informer.HandlerFuncs[*api.Pod]{
		AddFunc:    func(p *api.Pod, _ bool) { c.podChanged(p, true) },
		UpdateFunc: func(_, p *api.Pod) { c.podChanged(p, true) },
		DeleteFunc: func(p *api.Pod, _ bool) { c.podChanged(p, false) },
	})
	if err := w.Err(); err != nil {
		return nil, err
	}
	c.budgets.WaitFor(c.rcs, c.rss, c.deps, c.sets)
	c.stale.WaitFor(c.pods)
	return c, nil
}

// Run reconciles budgets and stale pod conditions until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	var staleErr error
	wg.Go(func() { staleErr = c.stale.Run(ctx, 1) })
	err := c.budgets.Run(ctx, 2)
	wg.Wait()
	if err == nil {
		err = staleErr
	}
	return err
}

// podChanged queues the budgets that select p and, when it carries a
// DisruptionTarget condition no deletion followed, its stale check. A
// pod several budgets select gets the real controller's warning each
// time it is added, updated or deleted, naming the first budget found
// (in no particular order, as the real lister returns them).
func (c *Controller) podChanged(p *api.Pod, exists bool) {
	budgets := c.budgetsFor(p)
	if len(budgets) > 1 {
		c.env.Events.Eventf(kit.Source{Component: component}, podRef(p), api.EventWarning, "MultiplePodDisruptionBudgets",
			"Pod %q/%q matches multiple PodDisruptionBudgets.  Chose %q arbitrarily.", p.Namespace, p.Name, budgets[0].Name)
	}
	for _, b := range budgets {
		c.budgets.Add(meta.Key(b))
	}
	if !exists {
		return
	}
	if stale, after := c.staleDisruption(p); stale {
		c.stale.AddAfter(meta.Key(p), after)
	}
}

// budgetsFor returns the budgets of p's namespace whose selector matches
// it: an empty selector matches every pod, a nil or invalid one none.
func (c *Controller) budgetsFor(p *api.Pod) []*api.PodDisruptionBudget {
	var out []*api.PodDisruptionBudget
	for _, b := range c.pdbs.Lister().Namespace(p.Namespace).List(selector.Everything()) {
		if b.Spec.Selector != nil && b.Spec.Selector.Matches(p.Labels) {
			out = append(out, b)
		}
	}
	return out
}

// podRef is the reference of an event about p.
func podRef(p *api.Pod) api.ObjectReference {
	return api.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: p.Namespace, Name: p.Name, UID: p.UID, ResourceVersion: p.ResourceVersion}
}

// budgetRef is the reference of an event about b.
func budgetRef(b *api.PodDisruptionBudget) api.ObjectReference {
	return api.ObjectReference{Kind: "PodDisruptionBudget", APIVersion: "policy/v1", Namespace: b.Namespace, Name: b.Name, UID: b.UID, ResourceVersion: b.ResourceVersion}
}

// errNoController is the error of a pod whose controller is not found.
func errNoController(pod string) error { return fmt.Errorf("found no controllers for pod %q", pod) }
