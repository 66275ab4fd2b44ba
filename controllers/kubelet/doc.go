// Package kubelet simulates the nodes of a cluster: it registers N Nodes,
// renews their Leases, and plays the part of each node's kubelet for the
// pods bound to it, without running anything.
//
// Each node registers and beats on its own, as every node of a cluster
// runs its own kubelet: every 10 s of the clock it renews its Lease and,
// if the cluster shows it other than Ready (the node lifecycle
// controller marks a node Unknown when a renewal comes late), reports
// its Ready status again, as a real kubelet's status update does. Its
// pods are left alone until it has registered.
//
// A pod bound to a simulated node goes Pending (containers
// ContainerCreating) → Running → Ready, each step on the cluster's clock
// after the delays its behaviour says (behaviour.go): by default at once.
// Annotations on the pod, or rules matching its image, make a container
// exit after a while with a given code, crash and restart with the
// kubelet's back-off (10s doubling to 5m, shown as CrashLoopBackOff), or
// never turn ready. Pods whose restartPolicy is not Always (a Job's)
// exit 0 after one second unless told otherwise. The whole lifecycle is
// one pure function from (pod, behaviour, now) to the next status and
// the time it changes next (lifecycle.go), so it is table-tested without
// a server.
//
// A pod being deleted has its containers stopped (after its behaviour's
// stop delay, never later than its grace period), its final status
// written, and is then removed with grace period 0, as a kubelet
// confirms a graceful deletion. A stopped node (StopNode) stops renewing
// its Lease and touching its pods, as a node that lost power does.
//
// Each simulated container writes log lines, kept in memory (logs.go),
// that an API server's pods/log endpoint can serve through Logs.
//
// # Files
//
//	kubelet.go   Kubelet, Options, New, Run, StopNode, StartNode: the pods' loop
//	node.go      registering Nodes, their status, and renewing their Leases
//	behaviour.go Behaviour: what a pod's containers do, from annotations and image rules
//	lifecycle.go the pod lifecycle: the next status of a running pod
//	terminate.go graceful deletion
//	logs.go      the simulated containers' log lines
package kubelet
