package informer

import (
	"context"
	"fmt"
	"slices"

	"github.com/kubecache/kubecache/meta"
)

// Release stops the Factory's informer for spec and T, if it has one, and
// forgets it: its watch is closed, its handlers stop, and a later For
// makes a new informer. It is how a process lets go of a resource it no
// longer needs — one whose CRD was deleted for good (Informer.Gone) — so
// that no watch is left open on the server.
//
// Release waits until the informer's Run has returned (every goroutine it
// started has ended) and reports whether there was such an informer. If
// ctx ends first it returns ctx's error; the informer stops all the same.
// An informer the Factory has not started yet is never started.
func Release[T meta.Object](ctx context.Context, f *Factory, spec Spec[T]) (bool, error) {
	return f.release(ctx, keyOf(spec))
}

// ReleaseNamespaces is Release for the informer ForNamespaces returns.
func ReleaseNamespaces[T meta.Object](ctx context.Context, f *Factory, spec NamespacesSpec[T]) (bool, error) {
	key := keyOf(spec.Spec)
	key.namespaces = namespacesKey(spec.Namespaces, spec.NamespaceSelector)
	return f.release(ctx, key)
}

// release stops and forgets the informer under key.
func (f *Factory) release(ctx context.Context, key factoryKey) (bool, error) {
	f.mu.Lock()
	s, ok := f.informers[key]
	if !ok {
		f.mu.Unlock()
		return false, nil
	}
	f.forgetLocked(key, s)
	cancel, done := s.cancel, s.done
	f.mu.Unlock()
	if cancel == nil {
		return true, nil
	}
	cancel()
	select {
	case <-done:
		return true, nil
	case <-ctx.Done():
		return true, fmt.Errorf("release informer %s: %w", s.inf.Name(), ctx.Err())
	}
}

// forgetLocked removes s, the informer under key, from the Factory and
// marks it released, so that Run does not start it. The caller holds mu.
func (f *Factory) forgetLocked(key factoryKey, s *sharedInformer) {
	delete(f.informers, key)
	s.released = true
	f.order = slices.DeleteFunc(f.order, func(o *sharedInformer) bool { return o == s })
	f.pending = slices.DeleteFunc(f.pending, func(o *sharedInformer) bool { return o == s })
}
