package reflector

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// Mirror is the reflector folded into one call: it lists and watches
// resource (in the forms NewListWatchFromClient accepts) in namespace ("" for
// all) through client, and keeps store equal to what the server holds until
// ctx is cancelled, with the default Options.
//
// It returns an error at once if resource cannot be parsed or T is not a
// usable object type, and otherwise nil after ctx is cancelled; faults on
// the way are retried as the error policy says. For hooks, selectors or
// other options, build the pieces: NewListWatchFromClient, NewReflector,
// Run.
func Mirror[T meta.Object](ctx context.Context, client rest.Getter, resource, namespace string, store Store[T]) error {
	if _, _, _, err := ParseResource(resource); err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	lw := NewListWatchFromClient[T](client, resource, namespace, selector.Fields{})
	r, err := NewReflector[T](lw, store, Options{Name: resource})
	if err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	return r.Run(ctx)
}
