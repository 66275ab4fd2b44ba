// Package daemonset is the DaemonSet controller: it runs one pod of a
// DaemonSet on every node that should run it, and replaces them when the
// template changes.
//
// Where a daemon runs (placement.go): on a node whose labels satisfy the
// template's nodeSelector and required node affinity and whose
// NoSchedule and NoExecute taints the pod tolerates, counting the
// tolerations the real controller gives every daemon (not-ready and
// unreachable NoExecute; disk, memory and pid pressure and unschedulable
// NoSchedule). A daemon already on a node stays there while it tolerates
// the node's NoExecute taints and its selector matches.
//
// One reconcile (sync.go) settles the ControllerRevision of the template
// (kit.SyncRevisions; daemons carry its hash in controller-revision-hash
// and the DaemonSet's generation in pod-template-generation), claims the
// pods and groups them by node (spec.nodeName, or for a pod not yet
// bound the node its affinity names), then: creates a daemon on each
// node that should run one and has none (pods.go: the template with the
// daemon tolerations and a required node affinity on the node's name,
// which the scheduler honours), deletes failed daemons, extra daemons
// and daemons on nodes where they may not continue. When there is
// nothing of that to do, a RollingUpdate step (update.go) deletes
// daemons of an old revision: unavailable ones at once, available ones
// while fewer than maxUnavailable (default 1) daemons are unavailable;
// the next reconcile puts a daemon of the new revision in their place.
// With rollingUpdate.maxSurge the update creates before it deletes: a
// daemon of the new revision starts beside an old one that is not
// available, and beside available ones on at most maxSurge nodes at a
// time; each old daemon is deleted once the new one on its node is
// available, so every node keeps an available daemon throughout (a node
// with two live daemons of one revision, or a new one beside an old one
// that stopped being ready, loses the extra one). OnDelete replaces
// nothing.
//
// The status (status.go) counts desired, current, misscheduled, ready,
// available, unavailable and updated daemons. Events are the real
// controller's SuccessfulCreate "Created pod: NAME", SuccessfulDelete
// "Deleted pod: NAME" and their Failed forms.
//
// # Files
//
//	controller.go Controller, New, Run: informers and handlers
//	placement.go  whether a daemon should run, or may continue, on a node
//	sync.go       the reconcile of one DaemonSet; creating and deleting per node
//	pods.go       a daemon pod for a node; creating and deleting pods
//	update.go     the rolling update: maxUnavailable, maxSurge, extra daemons on a node
//	status.go     the status counts
package daemonset
