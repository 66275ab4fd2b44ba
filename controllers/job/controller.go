package job

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
)

// Name is the controller's name, the source of its events.
const Name = "job-controller"

// Controller is the Job controller. Build it with New, run it with Run.
type Controller struct {
	env    kit.Env
	loop   *kit.Loop
	jobs   *informer.Informer[*api.Job]
	pods   *informer.Informer[*api.Pod]
	expect *kit.Expectations
}

// New builds the controller on env's shared informers.
func New(env kit.Env) (*Controller, error) {
	c := &Controller{expect: kit.NewExpectations()}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.jobs = kit.Inform[*api.Job](w, "jobs.v1.batch")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	kit.ByController(w, c.pods)
	kit.On(w, c.jobs, kit.SelfKey[*api.Job])
	w.OwnedPods(c.pods, c.expect, ownerKey, nil)
	return kit.Built(c, w)
}

// Run reconciles Jobs until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 5) }

// ownerKey returns the key of the Job that controls an object.
var ownerKey = kit.OwnerKeyOf("Job")

// event records an event about j.
func (c *Controller) event(j *api.Job, typ, reason, format string, args ...any) {
	c.env.Events.Eventf(kit.Source{Component: Name}, api.RefTo(&j.ObjectMeta, "batch/v1", "Job"), typ, reason, format, args...)
}
