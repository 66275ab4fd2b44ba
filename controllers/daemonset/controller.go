package daemonset

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/selector"
)

// Name is the controller's name, the source of its events.
const Name = "daemonset-controller"

// kind and apiVersion of the objects this controller owns pods for.
const (
	kind       = "DaemonSet"
	apiVersion = "apps/v1"
)

// Controller is the DaemonSet controller. Build it with New, run it with
// Run.
type Controller struct {
	env    kit.Env
	loop   *kit.Loop
	dss    *informer.Informer[*api.DaemonSet]
	pods   *informer.Informer[*api.Pod]
	nodes  *informer.Informer[*api.Node]
	revs   *informer.Informer[*api.ControllerRevision]
	expect *kit.Expectations
}

// ownerKey returns the key of the DaemonSet that controls an object.
var ownerKey = kit.OwnerKeyOf(kind)

// New builds the controller on env's shared informers and registers its
// handlers. The caller runs env.Factory (and env.Events).
func New(env kit.Env) (*Controller, error) {
	c := &Controller{expect: kit.NewExpectations()}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.dss = kit.Inform[*api.DaemonSet](w, "daemonsets.v1.apps")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	c.nodes = kit.Inform[*api.Node](w, "nodes")
	c.revs = kit.Inform[*api.ControllerRevision](w, "controllerrevisions.v1.apps")
	kit.ByController(w, c.pods)
	kit.ByController(w, c.revs)
	// Any node change may change where daemons run: every DaemonSet
	// looks again.
	everyDaemonSet := func(*api.Node) []string {
		var keys []string
		for _, ds := range c.dss.Lister().List(selector.Everything()) {
			keys = append(keys, meta.Key(ds))
		}
		return keys
	}
	kit.On(w, c.dss, kit.SelfKey[*api.DaemonSet])
	kit.On(w, c.revs, kit.OwnedKeys[*api.ControllerRevision](ownerKey))
	kit.On(w, c.nodes, everyDaemonSet)
	w.OwnedPods(c.pods, c.expect, ownerKey, nil)
	return kit.Built(c, w)
}

// Run reconciles DaemonSets until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 2) }

// event records an event about ds.
func (c *Controller) event(ds *api.DaemonSet, typ, reason, format string, args ...any) {
	c.env.Events.Eventf(kit.Source{Component: Name}, api.RefTo(&ds.ObjectMeta, apiVersion, kind), typ, reason, format, args...)
}
