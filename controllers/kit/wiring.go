package kit

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
)

// Wiring sets a controller up on an Env: the shared informers it reads,
// their indexes, and the handlers that queue its keys on its Loop. A step
// does nothing once an earlier one has failed, and Err returns that first
// failure, so a controller's New lists what it watches, in order, and
// checks for an error once. A Wiring is used by one goroutine, in New.
type Wiring struct {
	env  Env
	loop *Loop
	err  error
}

// Wire starts wiring a controller whose handlers queue keys on loop.
func Wire(env Env, loop *Loop) *Wiring { return &Wiring{env: env, loop: loop} }

// Begin starts a controller named name whose workers call reconcile: it
// applies env's defaults, builds the Loop, and returns the Wiring of that
// Loop. The controller keeps w.Env() and w.Loop() and ends its New with
// Built.
func Begin(env Env, name string, reconcile func(ctx context.Context, key string) error) *Wiring {
	env = env.WithDefaults()
	return Wire(env, NewLoop(env, name, reconcile))
}

// Env returns the Env the controller is wired on, defaults applied.
func (w *Wiring) Env() Env { return w.env }

// Loop returns the Loop the controller's handlers queue keys on.
func (w *Wiring) Loop() *Loop { return w.loop }

// Err returns the error of the first step that failed, or nil.
func (w *Wiring) Err() error { return w.err }

// Built ends a controller's New: c, or the error of w's first failed
// step.
func Built[C any](c C, w *Wiring) (C, error) {
	if w.err != nil {
		var none C
		return none, w.err
	}
	return c, nil
}

// Step runs step unless an earlier step failed; its error stops the
// steps after it.
func (w *Wiring) Step(step func() error) {
	if w.err == nil {
		w.err = step()
	}
}

// Inform returns the shared informer of T for resource (see Shared), or
// nil once a step has failed.
func Inform[T meta.Object](w *Wiring, resource string) *informer.Informer[T] {
	if w.err != nil {
		return nil
	}
	inf, err := Shared[T](w.env, resource)
	w.err = err
	return inf
}

// ByController adds the by-controller index to inf (see
// IndexByController).
func ByController[T meta.Object](w *Wiring, inf *informer.Informer[T]) {
	w.Step(func() error { return IndexByController(inf) })
}

// On queues the keys that keys returns for every change of an object of
// inf (see Watch).
func On[T meta.Object](w *Wiring, inf *informer.Informer[T], keys func(obj T) []string) {
	w.Step(func() error { return Watch(w.loop, inf, keys) })
}

// OnEvents registers h on inf (see WatchWith).
func OnEvents[T meta.Object](w *Wiring, inf *informer.Informer[T], h informer.Handler[T]) {
	w.Step(func() error { return WatchWith(w.loop, inf, h) })
}

// OwnedPods registers the pod handler of a pod-owning controller on pods
// (see WatchOwnedPods).
func (w *Wiring) OwnedPods(pods *informer.Informer[*api.Pod], expect *Expectations, ownerKey func(*meta.ObjectMeta) (string, bool), orphan func(*api.Pod)) {
	w.Step(func() error { return WatchOwnedPods(w.loop, pods, expect, ownerKey, orphan) })
}

// OwnedKeys is the key function (for On) of the objects a controller
// owns: the key ownerKey finds for an object, none for an object it does
// not own.
func OwnedKeys[T meta.Object](ownerKey func(*meta.ObjectMeta) (string, bool)) func(obj T) []string {
	return func(obj T) []string {
		if key, ok := ownerKey(obj.GetObjectMeta()); ok {
			return []string{key}
		}
		return nil
	}
}
