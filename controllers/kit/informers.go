package kit

import (
	"github.com/kubecache/kubecache/controllers/api"
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

// Pods returns the shared Pod informer.
func Pods(env Env) (*informer.Informer[*api.Pod], error) { return Shared[*api.Pod](env, "pods") }

// Nodes returns the shared Node informer.
func Nodes(env Env) (*informer.Informer[*api.Node], error) { return Shared[*api.Node](env, "nodes") }

// ReplicaSets returns the shared ReplicaSet informer.
func ReplicaSets(env Env) (*informer.Informer[*api.ReplicaSet], error) {
	return Shared[*api.ReplicaSet](env, "replicasets.v1.apps")
}

// Deployments returns the shared Deployment informer.
func Deployments(env Env) (*informer.Informer[*api.Deployment], error) {
	return Shared[*api.Deployment](env, "deployments.v1.apps")
}

// ControllerRevisions returns the shared ControllerRevision informer.
func ControllerRevisions(env Env) (*informer.Informer[*api.ControllerRevision], error) {
	return Shared[*api.ControllerRevision](env, "controllerrevisions.v1.apps")
}
