package cronjob

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
)

// Name is the controller's name, the source of its events.
const Name = "cronjob-controller"

// kind and apiVersion of the CronJob, the owner of its Jobs.
const (
	kind       = "CronJob"
	apiVersion = "batch/v1"
)

// Controller is the CronJob controller. Build it with New, run it with
// Run.
type Controller struct {
	env  kit.Env
	loop *kit.Loop
	cjs  *informer.Informer[*api.CronJob]
	jobs *informer.Informer[*api.Job]
}

// ownerKey returns the key of the CronJob that controls an object.
var ownerKey = kit.OwnerKeyOf(kind)

// New builds the controller on env's shared informers. Its schedules run
// on env.Clock.
func New(env kit.Env) (*Controller, error) {
	c := &Controller{}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.cjs = kit.Inform[*api.CronJob](w, "cronjobs.v1.batch")
	c.jobs = kit.Inform[*api.Job](w, "jobs.v1.batch")
	kit.ByController(w, c.jobs)
	kit.On(w, c.cjs, kit.SelfKey[*api.CronJob])
	kit.On(w, c.jobs, kit.OwnedKeys[*api.Job](ownerKey))
	return kit.Built(c, w)
}

// Run reconciles CronJobs until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 2) }

// event records an event about cj.
func (c *Controller) event(cj *api.CronJob, typ, reason, format string, args ...any) {
	c.env.Events.Eventf(kit.Source{Component: Name}, api.RefTo(&cj.ObjectMeta, apiVersion, kind), typ, reason, format, args...)
}
