// Package disruption is the disruption controller: it keeps the status
// of every PodDisruptionBudget, which the API server's eviction handler
// reads to decide whether a pod may be evicted (kubectl drain evicts
// through it).
//
// One reconcile (sync.go) of a budget lists the pods its selector picks
// and works out, as the real controller does:
//
//   - expectedPods and desiredHealthy (scale.go): an integer minAvailable
//     expects the selected pods and wants minAvailable healthy; a
//     percentage minAvailable, or maxUnavailable, expects the sum of the
//     scales of the pods' controllers (a ReplicationController, a
//     Deployment through its ReplicaSet, a ReplicaSet, a StatefulSet, or
//     any kind's scale subresource) and resolves the percentage against
//     it, rounding up. A selected pod without a controller gets the
//     UnmanagedPods warning; one whose controller is not found fails the
//     sync.
//   - disruptedPods: the pods the eviction handler recorded, kept while
//     they exist, are not being deleted yet, and were evicted less than
//     DeletionTimeout ago (the budget is looked at again when the first
//     entry runs out; a pod that outlived it gets the NotDeleted warning).
//   - currentHealthy: Ready pods neither being deleted nor recently
//     disrupted; disruptionsAllowed = currentHealthy - desiredHealthy, 0
//     when negative or when no pods are expected.
//   - observedGeneration and the DisruptionAllowed condition
//     (SufficientPods or InsufficientPods).
//
// The status is written through the status subresource only when it
// changed. A sync that fails for another reason than a conflict writes
// the fail-safe status: no disruption allowed, DisruptionAllowed False
// with reason SyncFailed and the error as its message.
//
// A second loop (stale.go) looks after pods an eviction marked with a
// DisruptionTarget condition that no deletion followed: after
// StalePodDisruptionTimeout the condition is set False.
//
// A pod change (add, update or delete) queues every budget that selects
// it. The real controller queues only the first it finds; where several
// match, both record the MultiplePodDisruptionBudgets warning on the pod,
// on its deletion too, naming that first budget ("Pod "ns"/"name"
// matches multiple PodDisruptionBudgets.  Chose "b" arbitrarily."). The
// eviction handler refuses to evict such a pod. Events come from the
// component "controllermanager", as the real controller's do.
//
// # Files
//
//	controller.go Controller, New, Run: informers, handlers, the budgets a pod belongs to
//	sync.go       the reconcile of one budget: its pods, disrupted pods, healthy count, status
//	scale.go      expected pods: the scale of the pods' controllers
//	stale.go      a DisruptionTarget condition that no deletion followed
package disruption
