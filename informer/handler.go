package informer

import "github.com/kubecache/kubecache/meta"

// Handler receives the changes an informer sees, one call at a time and in
// the order the informer applied them to its cache. Each handler is called
// from its own goroutine, so a slow handler delays only itself.
//
// Objects are shared with the cache and with every other handler: a handler
// must not modify them (cache.Clone makes a private copy).
//
// A handler should return quickly: the usual handler computes a key and
// adds it to a workqueue. A panic is recovered, reported to
// Options.OnError as a *HandlerPanicError and counted in Backlog.Panics;
// the handler then receives the next event.
type Handler[T meta.Object] interface {
	// OnAdd is called for an object the handler has not seen. initial is
	// true while the handler receives the informer's initial list (or, for
	// a handler added late, the cache's contents at the time it was added);
	// it is false for an object created later.
	OnAdd(obj T, initial bool)
	// OnUpdate is called with the previous and the new state of an object.
	// On a relist or a resync the two may have the same resourceVersion
	// (see Options.SkipUnchangedUpdates); on a resync they are the same
	// object.
	OnUpdate(oldObj, newObj T)
	// OnDelete is called with the last state of a deleted object. When the
	// informer learned of the deletion from a relist rather than a watch
	// event, the object may have changed after that state before it was
	// deleted; finalStateUnknown is then true.
	OnDelete(obj T, finalStateUnknown bool)
}

// HandlerFuncs adapts functions to a Handler. A nil function ignores its
// events.
type HandlerFuncs[T meta.Object] struct {
	AddFunc    func(obj T, initial bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T, finalStateUnknown bool)
}

// OnAdd calls AddFunc if it is set.
func (h HandlerFuncs[T]) OnAdd(obj T, initial bool) {
	if h.AddFunc != nil {
		h.AddFunc(obj, initial)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (h HandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (h HandlerFuncs[T]) OnDelete(obj T, finalStateUnknown bool) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(obj, finalStateUnknown)
	}
}
