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
	env = env.WithDefaults()
	c := &Controller{env: env}
	c.loop = kit.NewLoop(env, Name, c.sync)
	var err error
	if c.cjs, err = kit.Shared[*api.CronJob](env, "cronjobs.v1.batch"); err != nil {
		return nil, err
	}
	if c.jobs, err = kit.Shared[*api.Job](env, "jobs.v1.batch"); err != nil {
		return nil, err
	}
	if err := kit.IndexByController(c.jobs); err != nil {
		return nil, err
	}
	owned := func(j *api.Job) []string {
		if key, ok := ownerKey(&j.ObjectMeta); ok {
			return []string{key}
		}
		return nil
	}
	for _, err := range []error{kit.Watch(c.loop, c.cjs, kit.SelfKey[*api.CronJob]), kit.Watch(c.loop, c.jobs, owned)} {
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run reconciles CronJobs until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 2) }

// event records an event about cj.
func (c *Controller) event(cj *api.CronJob, typ, reason, format string, args ...any) {
	c.env.Events.Eventf(kit.Source{Component: Name}, api.RefTo(&cj.ObjectMeta, apiVersion, kind), typ, reason, format, args...)
}
