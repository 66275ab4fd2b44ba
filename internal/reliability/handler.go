package reliability

import (
	"sync"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
)

// ModelHandler is an informer event handler that rebuilds the informer's
// contents from the notifications alone, and shows every notification to a
// Monitor. If a notification is lost, duplicated or out of order, its model
// differs from the server, or the Monitor records a version going backwards.
// It satisfies informer.Handler[T] and is safe for concurrent use.
type ModelHandler[T meta.Object] struct {
	mon    *Monitor
	source string

	// mu guards model and notifications.
	mu            sync.Mutex
	model         Snapshot
	notifications int
}

// NewModelHandler returns a handler with an empty model reporting to mon;
// source names it in violations.
func NewModelHandler[T meta.Object](mon *Monitor, source string) *ModelHandler[T] {
	return &ModelHandler[T]{mon: mon, source: source, model: Snapshot{}}
}

func key[T meta.Object](obj T) (string, string) {
	m := obj.GetObjectMeta()
	return cache.MetaNamespaceKey(m.Namespace, m.Name), m.ResourceVersion
}

// record counts a notification and sets k to rv in the model (present)
// or removes it (!present). It reports whether the model held k before.
func (h *ModelHandler[T]) record(k, rv string, present bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, had := h.model[k]
	if present {
		h.model[k] = rv
	} else {
		delete(h.model, k)
	}
	h.notifications++
	return had
}

// OnAdd records obj. An add for an object the model already holds is a
// violation (a duplicate the informer should have delivered as an update).
func (h *ModelHandler[T]) OnAdd(obj T, _ bool) {
	k, rv := key(obj)
	if h.record(k, rv, true) {
		h.mon.Violation("%s: OnAdd for %s which it already had", h.source, k)
	}
	h.mon.Observe(h.source, h.source+":"+k, rv)
}

// OnUpdate records newObj; an update whose new state is older than its old
// state, or of an object the model does not hold, is a violation.
func (h *ModelHandler[T]) OnUpdate(oldObj, newObj T) {
	k, rv := key(newObj)
	_, oldRV := key(oldObj)
	if !h.record(k, rv, true) {
		h.mon.Violation("%s: OnUpdate for %s which it never had", h.source, k)
	}
	if c, ok := CompareResourceVersions(rv, oldRV); ok && c < 0 {
		h.mon.Violation("%s: OnUpdate for %s from rv=%s back to rv=%s", h.source, k, oldRV, rv)
	}
	h.mon.Observe(h.source, h.source+":"+k, rv)
}

// OnDelete removes obj from the model.
func (h *ModelHandler[T]) OnDelete(obj T, _ bool) {
	k, rv := key(obj)
	if !h.record(k, rv, false) {
		h.mon.Violation("%s: OnDelete for %s which it never had", h.source, k)
	}
	h.mon.Observe(h.source, h.source+":"+k, rv)
}

// Snapshot returns the model.
func (h *ModelHandler[T]) Snapshot() Snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(Snapshot, len(h.model))
	for k, v := range h.model {
		out[k] = v
	}
	return out
}

// Notifications returns how many notifications the handler received.
func (h *ModelHandler[T]) Notifications() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.notifications
}
