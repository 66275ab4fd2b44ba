// Package deployment is the Deployment controller: it turns a
// Deployment's pod template and replica count into ReplicaSets, and moves
// pods from the old ReplicaSets to the new one as its strategy says.
//
// # How a Deployment is reconciled
//
// A Deployment never touches pods. It owns ReplicaSets, one per pod
// template it has run, each named after the template's hash
// ("web-7c5ddbdf54") and labelled with it (pod-template-hash), so the
// ReplicaSets' selectors never overlap. The ReplicaSet whose template
// equals the Deployment's is the new one; every other is old. One
// reconcile (sync.go) then decides, in this order:
//
//  1. Being deleted: only report status.
//  2. Paused: apply replica count changes proportionally, nothing else
//     (scale.go), and say so in the Progressing condition.
//  3. A scaling event (spec.replicas changed while the template did not):
//     spread the change over the ReplicaSets that have pods, in
//     proportion to their size (scale.go).
//  4. Otherwise roll out, by strategy:
//     Recreate (recreate.go) scales every old ReplicaSet to zero, waits
//     until no old pod runs, then creates the new ReplicaSet at full size;
//     RollingUpdate (rolling.go) scales the new ReplicaSet up as far as
//     maxSurge allows above spec.replicas, and the old ones down as far as
//     maxUnavailable allows below it, one step per reconcile, each step
//     waiting for pods to turn available.
//
// Each reconcile ends by writing the status (status.go, progress.go):
// replica counts summed over the ReplicaSets, the Available condition
// (MinimumReplicasAvailable when at least spec.replicas − maxUnavailable
// pods are available), and the Progressing condition, whose reasons tell
// the rollout's story: NewReplicaSetCreated, FoundNewReplicaSet,
// ReplicaSetUpdated while pods move, NewReplicaSetAvailable when done,
// ProgressDeadlineExceeded when nothing moved for
// progressDeadlineSeconds, DeploymentPaused and DeploymentResumed.
//
// Revisions (replicasets.go, history.go): each ReplicaSet carries
// deployment.kubernetes.io/revision; the new one gets the highest. Rolling
// back (kubectl rollout undo) puts an old template back into the
// Deployment; the old ReplicaSet running it becomes the new one again and
// takes a new revision, its old number kept in
// deployment.kubernetes.io/revision-history. Old ReplicaSets beyond
// revisionHistoryLimit are deleted once they have no pods.
//
// Every ReplicaSet change is a merge patch conditional on the
// resourceVersion the controller read, so a reconcile that acted on a
// stale cache fails with a conflict and is retried instead of undoing
// someone's write.
//
// # Files
//
//	controller.go  Controller, Options, New, Run: informers, handlers, the queue
//	sync.go        the reconcile of one Deployment: which of the paths above
//	replicasets.go finding and creating the new ReplicaSet; revisions; annotations
//	rolling.go     the RollingUpdate strategy
//	recreate.go    the Recreate strategy
//	scale.go       scaling events and proportional scaling; writing a ReplicaSet's size
//	limits.go      maxSurge and maxUnavailable, and the sums over ReplicaSets
//	status.go      the status and the Available condition
//	progress.go    the Progressing condition, the progress deadline, paused
//	history.go     deleting old ReplicaSets beyond revisionHistoryLimit
package deployment
