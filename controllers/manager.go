package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/controllers/cronjob"
	"github.com/kubecache/kubecache/controllers/daemonset"
	"github.com/kubecache/kubecache/controllers/deployment"
	"github.com/kubecache/kubecache/controllers/disruption"
	"github.com/kubecache/kubecache/controllers/endpointslice"
	"github.com/kubecache/kubecache/controllers/job"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/controllers/kubelet"
	"github.com/kubecache/kubecache/controllers/nodelifecycle"
	"github.com/kubecache/kubecache/controllers/pvcprotection"
	"github.com/kubecache/kubecache/controllers/replicaset"
	"github.com/kubecache/kubecache/controllers/scheduler"
	"github.com/kubecache/kubecache/controllers/serviceaccount"
	"github.com/kubecache/kubecache/controllers/statefulset"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/informer/leaderelection"
	"github.com/kubecache/kubecache/rest"
)

// Options say what a Manager runs.
type Options struct {
	// Controllers names the controllers to run (see All and ParseNames);
	// none when empty.
	Controllers []string
	// Nodes is how many simulated nodes to run; none when 0.
	Nodes int
	// Kubelet configures the simulated nodes (its Nodes is replaced by
	// Nodes).
	Kubelet kubelet.Options
	// Clock is the cluster's time; nil is the wall clock.
	Clock clock.Clock
	// Logger receives what the controllers do; nil discards.
	Logger *slog.Logger
	// RootCA, when set, is published in every namespace as
	// kube-root-ca.crt.
	RootCA string
	// LeaderElection, when set, runs the controllers only while this
	// Manager holds the Lease it names.
	LeaderElection *LeaderElection
}

// runner is one part of a Manager: a controller or the nodes.
type runner interface {
	Run(ctx context.Context) error
}

// Manager runs the chosen controllers and simulated nodes on one shared
// informer factory and one event recorder.
type Manager struct {
	env         kit.Env
	controllers []runner
	nodes       []runner
	elector     *leaderelection.Elector
	// Kubelet is the simulated nodes, nil when Options.Nodes is 0.
	Kubelet *kubelet.Kubelet
}

// New builds the controllers and nodes opts asks for, talking through
// client.
func New(client *rest.Client, opts Options) (*Manager, error) {
	env := kit.Env{Client: client, Clock: opts.Clock, Logger: opts.Logger}.WithDefaults()
	env.Factory = informer.NewFactory(client, informer.FactoryOptions{
		OnError: func(err error) { env.Logger.Debug("informer", "err", err) },
	})
	env.Events = kit.NewRecorder(client, env.Clock, env.Logger)
	env.EventsV1 = kit.NewEventBroadcaster(client, env.Clock, env.Logger)
	m := &Manager{env: env}
	for _, name := range All {
		if !slices.Contains(opts.Controllers, name) {
			continue
		}
		r, err := build(env, name, opts)
		if err != nil {
			return nil, fmt.Errorf("%s controller: %w", name, err)
		}
		m.controllers = append(m.controllers, r)
	}
	if le := opts.LeaderElection; le != nil {
		e, err := le.elector(client, func(err error) { env.Logger.Debug("leader election", "err", err) })
		if err != nil {
			return nil, err
		}
		m.elector = e
	}
	if opts.Nodes > 0 {
		ko := opts.Kubelet
		ko.Nodes = opts.Nodes
		k, err := kubelet.New(env, ko)
		if err != nil {
			return nil, fmt.Errorf("simulated nodes: %w", err)
		}
		m.Kubelet = k
		m.nodes = append(m.nodes, k)
	}
	return m, nil
}

// build returns the named controller.
func build(env kit.Env, name string, opts Options) (runner, error) {
	switch name {
	case CronJob:
		return cronjob.New(env)
	case DaemonSet:
		return daemonset.New(env)
	case Deployment:
		return deployment.New(env, deployment.Options{})
	case Disruption:
		return disruption.New(env)
	case EndpointSlice:
		return endpointslice.New(env)
	case Job:
		return job.New(env)
	case NodeLifecycle:
		return nodelifecycle.New(env, nodelifecycle.Options{})
	case PVCProtection:
		return pvcprotection.New(env)
	case ReplicaSet:
		return replicaset.New(env, replicaset.Options{})
	case Scheduler:
		return scheduler.New(env, scheduler.Options{})
	case ServiceAccount:
		return serviceaccount.New(env, serviceaccount.Options{RootCA: opts.RootCA})
	case StatefulSet:
		return statefulset.New(env)
	}
	return nil, fmt.Errorf("not available")
}

// Env returns what the controllers were built from: the shared informer
// factory they read, the client, the clock and the event recorder. A test
// waits on its informers to know what the controllers have seen.
func (m *Manager) Env() kit.Env { return m.env }

// Run runs the informers, the event writers, the controllers and the nodes
// until ctx is cancelled, and returns once all have stopped. If one part
// fails, the others are stopped and its error returned.
func (m *Manager) Run(ctx context.Context) error {
	fns := []func(context.Context) error{m.env.Factory.Run, m.env.Events.Run, m.env.EventsV1.Run, m.runControllers}
	for _, r := range m.nodes {
		fns = append(fns, r.Run)
	}
	return runAll(ctx, fns...)
}

// runAll runs fns until ctx is cancelled or one fails, which stops the
// others; it returns once all have returned, with the first error.
func runAll(ctx context.Context, fns ...func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, f := range fns {
		wg.Go(func() {
			if err := f(ctx); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	return first
}
