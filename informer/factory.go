package informer

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// Factory shares informers: every caller asking for the same thing gets the
// same informer, so a process opens one watch per resource however many
// controllers read it. The sharing key is the object type, the
// reflector.Source (resource, namespace, label and field selectors, watch
// transport), the transform's name, the queue kind and
// SkipUnchangedUpdates: any difference gets its own informer.
//
// A Factory is safe for concurrent use. Informers may be asked for before
// or while Run runs; those asked for while it runs are started at once.
type Factory struct {
	client rest.Getter
	opts   FactoryOptions

	// mu guards the fields below.
	mu        sync.Mutex
	informers map[factoryKey]*sharedInformer
	// order lists the informers in the order they were first asked for.
	order []*sharedInformer
	state runState
	// pending holds informers asked for while Run runs, until Run starts
	// them; wake tells Run there are some.
	pending []*sharedInformer
	wake    chan struct{}
}

// FactoryOptions apply to every informer of a Factory.
type FactoryOptions struct {
	// Clock drives resyncs, backlog ages and the reflectors' timers; nil
	// is the wall clock.
	Clock clock.Clock
	// OnError receives every informer's errors (see Options.OnError).
	OnError func(error)
	// Reflector configures every informer's reflector (see
	// Options.Reflector); its Name is replaced by each informer's name.
	Reflector reflector.Options
}

// Spec says which informer For returns. Every field is part of the sharing
// key (the transform by its Name).
type Spec[T meta.Object] struct {
	reflector.Source
	Transform            Transform[T]
	Queue                QueueKind
	SkipUnchangedUpdates bool
	// Shard, if set, restricts this informer to one shard of the
	// resource (see reflector.Options.Shard) in place of the Factory's
	// FactoryOptions.Reflector.Shard, so that one process can cache
	// several shards, or one resource sharded and others whole. The
	// informer's name then ends in the shard's selector.
	Shard *reflector.Shard
}

// factoryKey is what makes two informers the same.
type factoryKey struct {
	typ           reflect.Type
	src           reflector.Source
	transform     string
	queue         QueueKind
	skipUnchanged bool
	// namespaces is the set of a multi-namespace informer
	// (factory_namespaces.go); "" for an ordinary one.
	namespaces string
	// shard is Spec.Shard's value when sharded is set.
	shard   reflector.Shard
	sharded bool
}

// sharedInformer is one informer of a Factory, whatever its type.
type sharedInformer struct {
	inf interface {
		Syncer
		Run(ctx context.Context) error
	}
	// typed is the *Informer[T], handed back by For.
	typed any
	// The fields below are guarded by the Factory's mu. cancel stops the
	// informer's Run and done is closed once it has returned; both are nil
	// until Run starts it. released is set by Release.
	cancel   context.CancelFunc
	done     chan struct{}
	released bool
}

// NewFactory returns a Factory whose informers list and watch through
// client.
func NewFactory(client rest.Getter, opts FactoryOptions) *Factory {
	return &Factory{
		client:    client,
		opts:      opts,
		informers: map[factoryKey]*sharedInformer{},
		wake:      make(chan struct{}, 1),
	}
}

// For returns the Factory's informer for spec and T, creating it on first
// use. Its name is spec.Resource, prefixed by "namespace/" when the Source
// has a namespace. It fails when the Source or the options are invalid (a
// transform needs a Name to be shared), or when the Factory has stopped
// (ErrStopped).
//
// A transform is known by its Name alone (Go cannot compare functions):
// callers that use one Name must mean one function.
func For[T meta.Object](f *Factory, spec Spec[T]) (*Informer[T], error) {
	key := keyOf(spec)
	if spec.Transform.Func != nil && spec.Transform.Name == "" {
		return nil, fmt.Errorf("informer for %s: %w: a shared transform needs a Name", spec.Resource, ErrInvalidOptions)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.informers[key]; ok {
		return s.typed.(*Informer[T]), nil
	}
	if f.state == stateStopped {
		return nil, fmt.Errorf("informer for %s: %w", spec.Resource, ErrStopped)
	}
	lw, err := reflector.NewListWatch[T](f.client, spec.Source)
	if err != nil {
		return nil, err
	}
	name := spec.Resource
	if spec.Namespace != "" {
		name = spec.Namespace + "/" + spec.Resource
	}
	ropts, name := withShard(f.opts.Reflector, spec.Shard, name)
	ropts.Name = name
	inf, err := New(lw, Options[T]{
		Name:                 name,
		Queue:                spec.Queue,
		Transform:            spec.Transform,
		SkipUnchangedUpdates: spec.SkipUnchangedUpdates,
		Reflector:            ropts,
		Clock:                f.opts.Clock,
		OnError:              f.opts.OnError,
	})
	if err != nil {
		return nil, err
	}
	f.addLocked(key, &sharedInformer{inf: inf, typed: inf})
	return inf, nil
}

// withShard returns the reflector options and the name of an informer
// named name with shard (nil: opts' own, and name as it is).
func withShard(opts reflector.Options, shard *reflector.Shard, name string) (reflector.Options, string) {
	if shard == nil {
		return opts, name
	}
	s := *shard
	opts.Shard = &s
	return opts, name + " " + s.String()
}

// keyOf is spec's sharing key.
func keyOf[T meta.Object](spec Spec[T]) factoryKey {
	k := factoryKey{
		typ:           reflect.TypeFor[T](),
		src:           spec.Source,
		transform:     spec.Transform.Name,
		queue:         spec.Queue,
		skipUnchanged: spec.SkipUnchangedUpdates,
	}
	if spec.Shard != nil {
		k.shard, k.sharded = *spec.Shard, true
	}
	return k
}

// addLocked records a new informer under key, and has Run start it if it
// runs. The caller holds mu.
func (f *Factory) addLocked(key factoryKey, s *sharedInformer) {
	f.informers[key] = s
	f.order = append(f.order, s)
	if f.state == stateRunning {
		f.pending = append(f.pending, s)
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// Run runs every informer of the Factory — those asked for already and
// those asked for while it runs — until ctx is cancelled, then waits for
// all of them to end and returns nil. It returns ErrAlreadyStarted if
// called twice.
func (f *Factory) Run(ctx context.Context) error {
	f.mu.Lock()
	if f.state != stateNew {
		f.mu.Unlock()
		return ErrAlreadyStarted
	}
	f.state = stateRunning
	var wg sync.WaitGroup
	// startLocked runs each informer under a context of its own, which
	// Release cancels. The caller holds mu.
	startLocked := func(s []*sharedInformer) {
		for _, si := range s {
			if si.released || si.done != nil {
				continue
			}
			ictx, cancel := context.WithCancel(ctx)
			si.cancel, si.done = cancel, make(chan struct{})
			wg.Go(func() {
				defer close(si.done)
				defer cancel()
				_ = si.inf.Run(ictx)
			})
		}
	}
	startLocked(f.order)
	f.mu.Unlock()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-f.wake:
			f.mu.Lock()
			startLocked(f.pending)
			f.pending = nil
			f.mu.Unlock()
		}
	}
	f.mu.Lock()
	f.state = stateStopped
	startLocked(f.pending) // asked for at the last moment: they see ctx done and stop at once
	f.pending = nil
	f.mu.Unlock()
	wg.Wait()
	return nil
}

// WaitForCacheSync waits for every informer asked for so far, as the
// package's WaitForCacheSync does.
func (f *Factory) WaitForCacheSync(ctx context.Context) error {
	f.mu.Lock()
	syncers := make([]Syncer, len(f.order))
	for i, s := range f.order {
		syncers[i] = s.inf
	}
	f.mu.Unlock()
	return WaitForCacheSync(ctx, syncers...)
}
