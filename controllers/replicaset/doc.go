// Package replicaset is the ReplicaSet controller: it keeps the number of
// pods a ReplicaSet owns equal to its spec.replicas, and reports in its
// status how many there are, how many are ready and how many available.
//
// One reconcile of a ReplicaSet (sync.go) claims the pods that belong to
// it (owned ones that still match its selector, and orphans that match,
// which it adopts), creates or deletes pods to reach spec.replicas
// (manage.go) unless a previous round's creations and deletions have not
// reached its cache yet, and writes the status (status.go). Pods are
// created in batches of 1, 2, 4… so a template the server refuses costs
// one request, not hundreds; pods are deleted worst first (rank.go):
// unscheduled, pending, not ready, ready for the shortest time, most
// restarts, newest.
//
// Events are those of the real controller: SuccessfulCreate "Created
// pod: NAME", FailedCreate "Error creating: …", SuccessfulDelete "Deleted
// pod: NAME", FailedDelete "Error deleting: …", from replicaset-controller.
//
// # Files
//
//	controller.go Controller, Options, New, Run: informers and the handlers that queue ReplicaSets
//	sync.go       the reconcile of one ReplicaSet; claiming pods
//	manage.go     creating and deleting pods: slow-start batches, expectations
//	rank.go       which pods go first when scaling down
//	status.go     the status: replicas, ready, available, terminating, ReplicaFailure
package replicaset
