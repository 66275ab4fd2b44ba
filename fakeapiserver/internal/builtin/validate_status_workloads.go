package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// The status rules of the workload kinds and their controllers' objects
// (apps, autoscaling, policy; a Job's are in validate_status_job.go).

const aboveReplicas = "cannot be greater than status.replicas"

func deploymentStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	status, oldStatus := sub(obj, "status"), sub(old, "status")
	v.nonNegativeAll(status, "observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas", "terminatingReplicas", "collisionCount")
	v.notAbove(status, "updatedReplicas", "replicas", aboveReplicas)
	v.notAbove(status, "readyReplicas", "replicas", aboveReplicas)
	v.notAbove(status, "availableReplicas", "replicas", aboveReplicas)
	v.notAbove(status, "availableReplicas", "readyReplicas", "cannot be greater than readyReplicas")
	v.notDecremented(status, oldStatus, "collisionCount")
}

// replicaCountsStatus checks a ReplicaSet's or ReplicationController's
// status counts (a ReplicationController has no terminatingReplicas).
func replicaCountsStatus(rc bool) statusRule {
	return func(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
		status := sub(obj, "status")
		v.nonNegativeAll(status, "replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration")
		if !rc {
			v.nonNegative(status, "terminatingReplicas", "status.terminatingReplicas")
		}
		v.notAbove(status, "fullyLabeledReplicas", "replicas", aboveReplicas)
		v.notAbove(status, "readyReplicas", "replicas", aboveReplicas)
		v.notAbove(status, "availableReplicas", "replicas", aboveReplicas)
		v.notAbove(status, "availableReplicas", "readyReplicas", "cannot be greater than readyReplicas")
	}
}

func statefulSetStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	status := sub(obj, "status")
	v.nonNegativeAll(status, "replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas", "observedGeneration", "collisionCount")
	v.notAbove(status, "readyReplicas", "replicas", aboveReplicas)
	v.notAbove(status, "currentReplicas", "replicas", aboveReplicas)
	v.notAbove(status, "updatedReplicas", "replicas", aboveReplicas)
	v.notAbove(status, "availableReplicas", "replicas", aboveReplicas)
	v.notAbove(status, "availableReplicas", "readyReplicas", "cannot be greater than status.readyReplicas")
	v.notDecremented(status, sub(old, "status"), "collisionCount")
}

func daemonSetStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	status := sub(obj, "status")
	v.nonNegativeAll(status, "currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady", "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable", "collisionCount")
	v.notDecremented(status, sub(old, "status"), "collisionCount")
}

// hpaStatus checks an autoscaler's replica counts and its conditions'
// observed generations.
func hpaStatus(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
	status := sub(obj, "status")
	for i, c := range items(status, "conditions") {
		v.nonNegative(c, "observedGeneration", index("status.conditions", i)+".observedGeneration")
	}
	v.nonNegativeAll(status, "currentReplicas", "desiredReplicas")
}

// pdbStatus checks a budget's conditions (metav1.Condition) and counts.
func pdbStatus(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
	status := sub(obj, "status")
	v.conditions("status.conditions", items(status, "conditions"))
	v.nonNegativeAll(status, "disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
}
