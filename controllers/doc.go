// Package controllers runs a cluster's controllers and simulated nodes
// against any API server: the kube-controller-manager, kube-scheduler and
// kubelets of a cluster in a box, built as clients on kubecache's
// informers, work queues and REST client.
//
// Each controller lives in its own package and reads like the real one
// it models: cronjob, daemonset, deployment, disruption, endpointslice, job, nodelifecycle, pvcprotection, replicaset,
// scheduler, serviceaccount, statefulset, and the
// simulated nodes in kubelet. kit holds what they share (the reconcile
// loop, expectations, the event recorder), api the parts of the
// built-in kinds they read and write. This package composes them: New
// builds the chosen controllers and nodes on one shared informer
// factory, Run runs them all until its context ends.
//
// # Files
//
//	manager.go Manager, Options, New, Run: the chosen controllers on one informer factory
//	names.go   the controllers' names and parsing a --controllers list
//	leader.go  LeaderElection: the controllers run only while the Manager holds a Lease
package controllers
