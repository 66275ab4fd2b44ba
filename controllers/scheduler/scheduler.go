package scheduler

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
)

// Name is the scheduler's name: pods with spec.schedulerName unset or
// equal to it are its, and it is the reporting controller of its events.
const Name = "default-scheduler"

// maxBindsInFlight bounds the Bindings sent at once.
const maxBindsInFlight = 16

// Options configure a Scheduler.
type Options struct {
	// RetryInterval is how often, on the cluster's clock, a pod that fits
	// nowhere is tried again even if nothing changed; default 5 minutes
	// (kube-scheduler's longest stay in its unschedulable queue).
	RetryInterval time.Duration
}

// Scheduler binds pending pods to nodes. Build it with New, run it with
// Run.
type Scheduler struct {
	env    kit.Env
	opts   Options
	events *kit.EventRecorder
	loop   *kit.Loop
	pods   *informer.Informer[*api.Pod]
	nodes  *informer.Informer[*api.Node]

	// usage is what each node runs, kept from pod events.
	usage *usage

	// mu guards unschedulable.
	mu sync.Mutex
	// unschedulable holds the pods that fit nowhere at their last try.
	unschedulable map[string]bool

	// binds are the Bindings in flight; Run waits for them. bindSlots
	// bounds them: the scheduling loop waits for a free slot, so the
	// requests never pile up faster than the server answers them.
	binds     sync.WaitGroup
	bindSlots chan struct{}
}

// New builds the scheduler on env's shared informers.
func New(env kit.Env, opts Options) (*Scheduler, error) {
	env = env.WithDefaults()
	if opts.RetryInterval == 0 {
		opts.RetryInterval = 5 * time.Minute
	}
	s := &Scheduler{env: env, opts: opts, events: env.EventsV1.NewRecorder(Name), usage: newUsage(), unschedulable: map[string]bool{}, bindSlots: make(chan struct{}, maxBindsInFlight)}
	s.loop = kit.NewLoop(env, Name, s.schedule)
	w := kit.Wire(env, s.loop)
	s.pods = kit.Inform[*api.Pod](w, "pods")
	s.nodes = kit.Inform[*api.Node](w, "nodes")
	kit.OnEvents(w, s.pods, informer.HandlerFuncs[*api.Pod]{
		AddFunc:    func(p *api.Pod, _ bool) { s.podChanged(nil, p) },
		UpdateFunc: s.podChanged,
		DeleteFunc: func(p *api.Pod, _ bool) { s.podGone(p) },
	})
	retry := func(*api.Node) []string { return s.takeUnschedulable() }
	kit.On(w, s.nodes, retry)
	if err := w.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// Run schedules pods until ctx is cancelled, and returns once the
// Bindings in flight have ended. Pods are scheduled one at a time, as
// kube-scheduler does, so each decision sees the last.
func (s *Scheduler) Run(ctx context.Context) error {
	err := s.loop.Run(ctx, 1)
	s.binds.Wait()
	return err
}

// isPending reports whether p waits for this scheduler.
func isPending(p *api.Pod) bool {
	return p.Spec.NodeName == "" && p.DeletionTimestamp == nil && !api.IsPodTerminal(p) &&
		(p.Spec.SchedulerName == "" || p.Spec.SchedulerName == Name)
}

// podChanged queues a pending pod, unless it is unschedulable and only
// its status changed (the scheduler's own PodScheduled=False write): a
// retry waits for a change in the cluster.
func (s *Scheduler) podChanged(old, p *api.Pod) {
	key := meta.Key(p)
	s.usage.observe(key, p)
	if isPending(p) {
		s.mu.Lock()
		waiting := s.unschedulable[key]
		s.mu.Unlock()
		if waiting && old != nil && old.Generation == p.Generation && maps.Equal(old.Labels, p.Labels) {
			return
		}
		s.loop.Add(key)
		return
	}
	if api.IsPodTerminal(p) || p.DeletionTimestamp != nil {
		s.retryUnschedulable() // room was freed
	}
}

func (s *Scheduler) podGone(p *api.Pod) {
	key := meta.Key(p)
	s.usage.forget(key)
	s.mu.Lock()
	delete(s.unschedulable, key)
	s.mu.Unlock()
	if p.Spec.NodeName != "" {
		s.retryUnschedulable()
	}
}

// takeUnschedulable returns the unschedulable pods' keys and forgets them:
// they are about to be tried again.
func (s *Scheduler) takeUnschedulable() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.unschedulable))
	for k := range s.unschedulable {
		keys = append(keys, k)
	}
	clear(s.unschedulable)
	return keys
}

func (s *Scheduler) retryUnschedulable() {
	for _, k := range s.takeUnschedulable() {
		s.loop.Add(k)
	}
}
