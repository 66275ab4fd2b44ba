// Command configmap-mirror is an example controller built on kubecache: it
// keeps every ConfigMap labelled kubecache.dev/mirror=true copied into
// every namespace, and removes the copies when the source goes.
//
//	go run ./examples/configmap-mirror --kubeconfig ~/.kube/config -v
//
// It shows the whole stack at work: a Factory sharing informers (the
// ConfigMap informer with a transform, a metadata-only Namespace
// informer), listers for reads, an index, a workqueue with retries, the
// REST client for writes and, with -leader-elect, a Lease so that two
// copies do not both act. README.md walks through it.
//
// # Files
//
//	main.go       run: flags, kubeconfig, informers, leader election
//	controller.go Controller: informers, handlers that queue keys, workers, retries
//	reconcile.go  reconcile: make the cluster match one source
//	configmap.go  the ConfigMap type and the labels that drive the mirror
package main
