package job

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
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
	env = env.WithDefaults()
	c := &Controller{env: env, expect: kit.NewExpectations()}
	c.loop = kit.NewLoop(env, Name, c.sync)
	var err error
	if c.jobs, err = kit.Shared[*api.Job](env, "jobs.v1.batch"); err != nil {
		return nil, err
	}
	if c.pods, err = kit.Pods(env); err != nil {
		return nil, err
	}
	if err := kit.IndexByController(c.pods); err != nil {
		return nil, err
	}
	if err := kit.Watch(c.loop, c.jobs, kit.SelfKey[*api.Job]); err != nil {
		return nil, err
	}
	err = kit.WatchWith(c.loop, c.pods, informer.HandlerFuncs[*api.Pod]{
		AddFunc: func(p *api.Pod, _ bool) {
			if key, ok := ownerKey(p); ok {
				c.expect.Created(key)
				c.loop.Add(key)
			}
		},
		UpdateFunc: func(old, p *api.Pod) {
			if key, ok := ownerKey(p); ok {
				if p.DeletionTimestamp != nil && old.DeletionTimestamp == nil {
					c.expect.Deleted(key, meta.Key(p))
				}
				c.loop.Add(key)
			}
		},
		DeleteFunc: func(p *api.Pod, _ bool) {
			if key, ok := ownerKey(p); ok {
				c.expect.Deleted(key, meta.Key(p))
				c.loop.Add(key)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles Jobs until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 5) }

// ownerKey returns the key of the Job that controls p.
func ownerKey(p *api.Pod) (string, bool) {
	ref := api.ControllerOf(&p.ObjectMeta)
	if ref == nil || ref.Kind != "Job" {
		return "", false
	}
	return p.Namespace + "/" + ref.Name, true
}

// event records an event about j.
func (c *Controller) event(j *api.Job, typ, reason, format string, args ...any) {
	c.env.Events.Eventf(kit.Source{Component: Name}, api.RefTo(&j.ObjectMeta, "batch/v1", "Job"), typ, reason, format, args...)
}
