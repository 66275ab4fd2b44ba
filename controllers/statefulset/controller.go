package statefulset

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/selector"
)

// Name is the controller's name, the source of its events.
const Name = "statefulset-controller"

// kind and apiVersion of the objects this controller owns pods for.
const (
	kind       = "StatefulSet"
	apiVersion = "apps/v1"
)

// Controller is the StatefulSet controller. Build it with New, run it
// with Run.
type Controller struct {
	env    kit.Env
	loop   *kit.Loop
	sets   *informer.Informer[*api.StatefulSet]
	pods   *informer.Informer[*api.Pod]
	revs   *informer.Informer[*api.ControllerRevision]
	claims *informer.Informer[*api.PersistentVolumeClaim]
	expect *kit.Expectations
}

// New builds the controller on env's shared informers and registers its
// handlers. The caller runs env.Factory (and env.Events).
func New(env kit.Env) (*Controller, error) {
	c := &Controller{expect: kit.NewExpectations()}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.sets = kit.Inform[*api.StatefulSet](w, "statefulsets.v1.apps")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	c.revs = kit.Inform[*api.ControllerRevision](w, "controllerrevisions.v1.apps")
	c.claims = kit.Inform[*api.PersistentVolumeClaim](w, "persistentvolumeclaims")
	kit.ByController(w, c.pods)
	kit.ByController(w, c.revs)
	kit.On(w, c.sets, kit.SelfKey[*api.StatefulSet])
	kit.On(w, c.revs, kit.OwnedKeys[*api.ControllerRevision](ownerKey))
	kit.On(w, c.claims, func(*api.PersistentVolumeClaim) []string { return nil })
	w.OwnedPods(c.pods, c.expect, ownerKey, c.enqueueMatching)
	return kit.Built(c, w)
}

// Run reconciles StatefulSets until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 5) }

// ownerKey returns the key of the StatefulSet that controls an object.
var ownerKey = kit.OwnerKeyOf(kind)

// enqueueMatching queues every StatefulSet of an orphan's namespace that
// selects it.
func (c *Controller) enqueueMatching(p *api.Pod) {
	for _, s := range c.sets.Lister().Namespace(p.Namespace).List(selector.Everything()) {
		if !s.Spec.Selector.Empty() && s.Spec.Selector.Matches(p.Labels) {
			c.loop.Add(meta.Key(s))
		}
	}
}

// event records an event about set.
func (c *Controller) event(set *api.StatefulSet, typ, reason, format string, args ...any) {
	c.env.Events.Eventf(kit.Source{Component: Name}, api.RefTo(&set.ObjectMeta, apiVersion, kind), typ, reason, format, args...)
}
