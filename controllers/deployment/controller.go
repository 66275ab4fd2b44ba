package deployment

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/selector"
)

// Name is the controller's name, the source of its events.
const Name = "deployment-controller"

// Options configure a Controller.
type Options struct {
	// Workers is how many Deployments are reconciled at once; default 5,
	// kube-controller-manager's --concurrent-deployment-syncs.
	Workers int
}

// Controller is the Deployment controller. Build it with New, run it
// with Run.
type Controller struct {
	env         kit.Env
	opts        Options
	loop        *kit.Loop
	deployments *informer.Informer[*api.Deployment]
	rss         *informer.Informer[*api.ReplicaSet]
	pods        *informer.Informer[*api.Pod]
}

// New builds the controller on env's shared informers.
func New(env kit.Env, opts Options) (*Controller, error) {
	if opts.Workers == 0 {
		opts.Workers = 5
	}
	c := &Controller{opts: opts}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.deployments = kit.Inform[*api.Deployment](w, "deployments.v1.apps")
	c.rss = kit.Inform[*api.ReplicaSet](w, "replicasets.v1.apps")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	kit.ByController(w, c.rss)
	kit.ByController(w, c.pods)
	kit.On(w, c.deployments, kit.SelfKey[*api.Deployment])
	kit.On(w, c.rss, c.deploymentsOf)
	// Recreate waits for the old pods to be gone: their deletion is news.
	podGone := func(p *api.Pod, _ bool) {
		for _, k := range c.deploymentOfPod(p) {
			c.loop.Add(k)
		}
	}
	kit.OnEvents(w, c.pods, informer.HandlerFuncs[*api.Pod]{DeleteFunc: podGone})
	return kit.Built(c, w)
}

// Run reconciles Deployments until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, c.opts.Workers) }

// deploymentsOf returns the key of the Deployment that controls rs or,
// for an orphan, of every Deployment whose selector matches it (one may
// adopt it).
func (c *Controller) deploymentsOf(rs *api.ReplicaSet) []string {
	if ref := api.ControllerOf(&rs.ObjectMeta); ref != nil {
		if ref.Kind != "Deployment" {
			return nil
		}
		return []string{rs.Namespace + "/" + ref.Name}
	}
	var keys []string
	for _, d := range c.deployments.Lister().Namespace(rs.Namespace).List(selector.Everything()) {
		if !d.Spec.Selector.Empty() && d.Spec.Selector.Matches(rs.Labels) {
			keys = append(keys, meta.Key(d))
		}
	}
	return keys
}

// deploymentOfPod returns the key of the Deployment behind a pod's
// ReplicaSet, if any.
func (c *Controller) deploymentOfPod(p *api.Pod) []string {
	ref := api.ControllerOf(&p.ObjectMeta)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	rs, err := c.rss.Lister().Namespace(p.Namespace).Get(ref.Name)
	if err != nil {
		return nil
	}
	if dref := api.ControllerOf(&rs.ObjectMeta); dref != nil && dref.Kind == "Deployment" {
		return []string{p.Namespace + "/" + dref.Name}
	}
	return nil
}

// event records an event about d.
func (c *Controller) event(d *api.Deployment, typ, reason, format string, args ...any) {
	c.env.Events.Eventf(kit.Source{Component: Name}, api.RefTo(&d.ObjectMeta, "apps/v1", "Deployment"), typ, reason, format, args...)
}
