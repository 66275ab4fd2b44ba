package kit

import (
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
)

// Shared returns the Factory's informer of T for resource (all
// namespaces, managedFields dropped): every controller asking for the
// same resource and type gets the same informer, so a process opens one
// watch per resource.
func Shared[T meta.Object](env Env, resource string) (*informer.Informer[T], error) {
	return informer.For(env.Factory, informer.Spec[T]{
		Source:    reflector.Source{Resource: resource},
		Transform: informer.DropManagedFields[T](),
	})
}
