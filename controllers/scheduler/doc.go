// Package scheduler is a pod scheduler: it binds each pending pod to a
// node that can run it, or leaves it Pending with the PodScheduled=False
// condition and the FailedScheduling event a real kube-scheduler
// records. Its events (Scheduled, action Binding; FailedScheduling,
// action Scheduling) are written through events.k8s.io/v1 with
// reportingController default-scheduler, as kube-scheduler writes them;
// kubectl reads them through core/v1.
//
// A node can run a pod when it is schedulable (spec.unschedulable unset),
// the pod tolerates its NoSchedule and NoExecute taints, its labels
// satisfy the pod's nodeSelector and required node affinity, and the
// requests of the pods already there plus this pod's fit its allocatable
// cpu, memory and pod count (fit.go). Among those, the pod goes to the
// least allocated node, preferred node affinity first (schedule.go). What
// each node runs is kept from pod events (usage.go); a pod is counted on
// its node from the moment it is bound, before the informer shows it, so
// two pods scheduled back to back never both take the last room on a
// node. Bindings are sent beside the scheduling loop, at most 16 at once,
// as kube-scheduler's binding cycle runs beside its scheduling cycle.
//
// A pod that fits nowhere is retried when a node or a pod changes, and
// every five minutes of the cluster's clock.
//
// # Files
//
//	scheduler.go Scheduler, Options, New, Run: informers, the queue of pending pods
//	schedule.go  one scheduling attempt: filter, score, bind, or report why not
//	fit.go       the filters: taints, node selector and affinity, resources
//	usage.go     what each node runs, kept from pod events (and the pods bound but not yet seen)
//	message.go   the "0/3 nodes are available: …" message
package scheduler
