package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Defaults of the workload kinds (apps/v1, batch/v1 and the core
// ReplicationController): their own fields, then their pod template.

// defaultDeployment defaults an apps/v1 Deployment.
func defaultDeployment(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	ptrInt(spec, "replicas", 1)
	rollingUpdate(spec, "strategy", jsonv.NewString("25%"), jsonv.NewString("25%"))
	ptrInt(spec, "revisionHistoryLimit", 10)
	ptrInt(spec, "progressDeadlineSeconds", 600)
	podTemplate(child(spec, "template"))
}

// defaultReplicaSet defaults an apps/v1 ReplicaSet.
func defaultReplicaSet(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	ptrInt(spec, "replicas", 1)
	podTemplate(child(spec, "template"))
}

// defaultDaemonSet defaults an apps/v1 DaemonSet.
func defaultDaemonSet(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	rollingUpdate(spec, "updateStrategy", number(1), number(0))
	ptrInt(spec, "revisionHistoryLimit", 10)
	podTemplate(child(spec, "template"))
}

// rollingUpdate defaults a Deployment's or DaemonSet's strategy under key:
// type RollingUpdate, and for that type the rollingUpdate block with its
// maxUnavailable and maxSurge.
func rollingUpdate(spec *jsonv.Value, key string, maxUnavailable, maxSurge jsonv.Value) {
	strategy := child(spec, key)
	if strategy == nil {
		return
	}
	orString(strategy, "type", "RollingUpdate")
	if str(strategy, "type") != "RollingUpdate" {
		return
	}
	if ru := child(strategy, "rollingUpdate"); ru != nil {
		if unset(ru, "maxUnavailable") {
			ru.Set("maxUnavailable", maxUnavailable)
		}
		if unset(ru, "maxSurge") {
			ru.Set("maxSurge", maxSurge)
		}
	}
}

// defaultStatefulSet defaults an apps/v1 StatefulSet. A rolling update
// strategy given without its rollingUpdate block gets no partition, as on
// the real server; one whose type was defaulted gets both.
func defaultStatefulSet(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	orString(spec, "podManagementPolicy", "OrderedReady")
	if strategy := child(spec, "updateStrategy"); strategy != nil {
		if empty(strategy, "type") {
			strategy.Set("type", jsonv.NewString("RollingUpdate"))
			ptrObject(strategy, "rollingUpdate")
		}
		if str(strategy, "type") == "RollingUpdate" {
			if ru := present(strategy, "rollingUpdate"); ru != nil {
				ptrInt(ru, "partition", 0)
				ptrInt(ru, "maxUnavailable", 1)
			}
		}
	}
	if policy := child(spec, "persistentVolumeClaimRetentionPolicy"); policy != nil {
		orString(policy, "whenDeleted", "Retain")
		orString(policy, "whenScaled", "Retain")
	}
	ptrInt(spec, "replicas", 1)
	ptrInt(spec, "revisionHistoryLimit", 10)
	podTemplate(child(spec, "template"))
	each(spec, "volumeClaimTemplates", func(pvc *jsonv.Value) {
		// Claim templates are embedded objects: the real server writes
		// their kind and apiVersion.
		orString(pvc, "apiVersion", "v1")
		orString(pvc, "kind", "PersistentVolumeClaim")
		defaultPVC(nil, pvc)
	})
}

// defaultJob defaults a batch/v1 Job. The Job's labels, when it has none,
// are its pod template's.
func defaultJob(m *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	jobSpec(spec)
	if m != nil && len(m.Labels) == 0 {
		if t := present(spec, "template"); t != nil {
			if md := present(t, "metadata"); md != nil {
				if labels := stringMap(md, "labels"); labels != nil {
					m.Labels = labels
				}
			}
		}
	}
}

// jobSpec sets the defaults of a Job's spec (in a Job and in a CronJob's
// job template).
func jobSpec(spec *jsonv.Value) {
	if unset(spec, "completions") && unset(spec, "parallelism") {
		spec.Set("completions", number(1))
	}
	ptrInt(spec, "parallelism", 1)
	if unset(spec, "backoffLimit") {
		if unset(spec, "backoffLimitPerIndex") {
			spec.Set("backoffLimit", number(6))
		} else {
			spec.Set("backoffLimit", number(2147483647))
		}
	}
	ptrString(spec, "completionMode", "NonIndexed")
	ptrBool(spec, "suspend", false)
	if unset(spec, "podReplacementPolicy") {
		if unset(spec, "podFailurePolicy") {
			spec.Set("podReplacementPolicy", jsonv.NewString("TerminatingOrFailed"))
		} else {
			spec.Set("podReplacementPolicy", jsonv.NewString("Failed"))
		}
	}
	ptrBool(spec, "manualSelector", false)
	podFailurePolicy(spec)
	podTemplate(child(spec, "template"))
}

// podFailurePolicy defaults the status of each onPodConditions pattern.
func podFailurePolicy(spec *jsonv.Value) {
	if pfp := present(spec, "podFailurePolicy"); pfp != nil {
		each(pfp, "rules", func(rule *jsonv.Value) {
			each(rule, "onPodConditions", func(p *jsonv.Value) { orString(p, "status", "True") })
		})
	}
}

// defaultCronJob defaults a batch/v1 CronJob. Its job template gets the
// pod template defaults and the pod failure policy's, not the Job's own.
func defaultCronJob(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	orString(spec, "concurrencyPolicy", "Allow")
	ptrBool(spec, "suspend", false)
	ptrInt(spec, "successfulJobsHistoryLimit", 3)
	ptrInt(spec, "failedJobsHistoryLimit", 1)
	if jt := child(spec, "jobTemplate"); jt != nil {
		if js := child(jt, "spec"); js != nil {
			podFailurePolicy(js)
			podTemplate(child(js, "template"))
		}
	}
}

// defaultReplicationController defaults a core/v1 ReplicationController:
// the selector and the labels, when empty, are the template's labels.
func defaultReplicationController(m *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	if t := present(spec, "template"); t != nil {
		if md := present(t, "metadata"); md != nil {
			if labels := present(md, "labels"); labels != nil {
				labelsCopy := labels.Clone()
				mapCopy := stringMap(md, "labels")
				if empty(spec, "selector") {
					spec.Set("selector", labelsCopy)
				}
				if m != nil && len(m.Labels) == 0 && mapCopy != nil {
					m.Labels = mapCopy
				}
			}
		}
	}
	ptrInt(spec, "replicas", 1)
	if t := present(spec, "template"); t != nil {
		podTemplate(t)
	}
}

// defaultPodTemplate defaults a core/v1 PodTemplate.
func defaultPodTemplate(_ *meta.ObjectMeta, obj *jsonv.Value) {
	podTemplate(child(obj, "template"))
}
