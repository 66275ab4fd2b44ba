package kit

import (
	"errors"
	"fmt"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
)

// IndexByController adds api.ControllerUIDIndex (objects by the UID of
// their controller) to a shared informer; a second call for the same
// informer is a no-op, so every controller can ask for it.
func IndexByController[T meta.Object](inf *informer.Informer[T]) error {
	err := inf.Indexer().AddIndexers(cache.Indexers[T]{
		api.ControllerUIDIndex: func(obj T) ([]string, error) { return api.ControllerUID(obj.GetObjectMeta()), nil },
	})
	if err != nil && !errors.Is(err, cache.ErrIndexExists) {
		return fmt.Errorf("index %s by controller: %w", inf.Name(), err)
	}
	return nil
}

// OwnedBy returns the objects of inf whose controller has uid.
func OwnedBy[T meta.Object](inf *informer.Informer[T], uid string) []T {
	objs, _ := inf.Indexer().ByIndex(api.ControllerUIDIndex, uid)
	return objs
}

// OwnedOrOrphans returns the objects of inf in namespace that owner
// controls, and the orphans there it might adopt.
func OwnedOrOrphans[T meta.Object](inf *informer.Informer[T], namespace, uid string) []T {
	out := OwnedBy(inf, uid)
	orphans, _ := inf.Indexer().ByIndex(api.ControllerUIDIndex, "")
	for _, o := range orphans {
		if o.GetObjectMeta().Namespace == namespace {
			out = append(out, o)
		}
	}
	return out
}
