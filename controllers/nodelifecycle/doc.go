// Package nodelifecycle is the node lifecycle controller together with
// the taint eviction controller: a node whose Lease is not renewed for
// the grace period (50 s, kube-controller-manager's
// --node-monitor-grace-period) has its conditions set to Unknown
// ("NodeStatusUnknown", "Kubelet stopped posting node status.") and gets
// the node.kubernetes.io/unreachable taints, NoSchedule and NoExecute (a
// node reporting Ready=False gets node.kubernetes.io/not-ready instead);
// a healthy node loses them again.
//
// Pods on a node with a NoExecute taint they do not tolerate are deleted
// (a TaintManagerEviction event, "Marking for deletion Pod ns/name"):
// at once without a toleration, after tolerationSeconds with one. Pods
// that carry no toleration for the not-ready and unreachable taints are
// treated as tolerating them for 300 s, the tolerations the API server's
// DefaultTolerationSeconds admission gives every pod.
//
// # Files
//
//	controller.go Controller, Options, New, Run, and the reconcile of one node
//	evict.go      the taint eviction of a node's pods
package nodelifecycle
