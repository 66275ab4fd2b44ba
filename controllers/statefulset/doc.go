// Package statefulset is the StatefulSet controller: it runs a
// StatefulSet's pods under stable names ("<set>-<ordinal>"), each with
// its hostname, its subdomain (spec.serviceName), the
// statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index
// labels and, for every volume claim template, its own
// PersistentVolumeClaim "<template>-<set>-<ordinal>", created before the
// pod. The claims outlive the pod and the set unless
// persistentVolumeClaimRetentionPolicy says Delete (retention.go): as in
// the real controller, whenDeleted: Delete makes the set a claim's
// controller owner and whenScaled: Delete makes a member past
// spec.replicas the owner of its claims before it is deleted, so the
// garbage collector deletes them with their owner.
//
// One reconcile (sync.go) claims the set's pods, settles its revisions
// (revisions.go: one ControllerRevision per pod template the set has
// run, named after the template's hash and numbered; a template equal
// to an older revision renumbers that one, as kubectl rollout undo
// expects), takes one step (step.go), and writes the status (status.go).
// A step, in the real controller's order:
//
//  1. a member that failed or finished is deleted, to be made again;
//  2. missing members are created, lowest ordinal first: under
//     OrderedReady one at a time, each once every lower member is
//     running and ready; under Parallel all at once;
//  3. members past spec.replicas are deleted, highest ordinal first
//     (OrderedReady: one at a time, once every other member is healthy);
//  4. under RollingUpdate, once every member is healthy, the highest
//     member of an old revision at or above the partition is deleted;
//     step 2 brings it back at the update revision. Below the partition
//     a recreated member keeps the current revision. OnDelete replaces
//     nothing: a member deleted by someone comes back at the update
//     revision.
//
// The status counts the members (replicas, ready, available, at the
// current and at the update revision); once every member is updated and
// ready, the update revision becomes the current one. Events are the
// real controller's: SuccessfulCreate "create Pod web-0 in StatefulSet
// web successful", "create Claim data-web-0 Pod web-0 in StatefulSet web
// success", SuccessfulDelete, and FailedCreate/FailedDelete.
//
// # Files
//
//	controller.go Controller, New, Run: informers and the handlers that queue StatefulSets
//	sync.go       the reconcile of one StatefulSet: claiming pods, status and history writes
//	step.go       one step: replace finished members, create, delete condemned, roll
//	pods.go       a member's pod and claims: names, identity, volumes; creating and deleting
//	revisions.go  ControllerRevisions: the update and current revision, history
//	retention.go  the claims' owner references under the retention policy
//	status.go     the status counts and the end of a rolling update
package statefulset
