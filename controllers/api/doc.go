// Package api holds the parts of the built-in Kubernetes kinds that the
// controllers and the simulated nodes read and write: Pods, Nodes,
// ReplicaSets, Deployments, StatefulSets, PodDisruptionBudgets, ServiceAccounts and Events, with the helpers
// the real controllers share (is a pod ready? does a selector match? what
// is a template's pod-template-hash?).
//
// The types are deliberately partial. A controller decodes only the
// fields it reasons about, and never writes a whole object back from
// them: it creates objects it built itself, writes .status through the
// status subresource, or sends a merge patch of the fields it owns. A pod
// template is carried as raw JSON (PodTemplate.Spec), so a field this
// package does not know survives the trip from a Deployment to its
// ReplicaSet to its pods.
//
// # Files
//
//	pod.go            Pod, PodSpec, Container, PodStatus and its conditions and container states
//	pod_state.go      the questions every controller asks of a pod: ready, available, active, terminating
//	node.go           Node, taints, capacity and the Ready condition
//	template.go       PodTemplate, the pod-template-hash and template equality
//	selector.go       LabelSelector and its conversion to a selector.Labels
//	intorstr.go       IntOrString (maxSurge, maxUnavailable) and percentages
//	quantity.go       resource quantities ("100m", "128Mi") as milli-units
//	owner.go          controller references: who owns an object
//	replicaset.go     ReplicaSet
//	replicationcontroller.go ReplicationController, as far as its scale
//	deployment.go     Deployment, its strategy and its conditions
//	daemonset.go      DaemonSet and its update strategy
//	nodeaffinity.go   whether a node satisfies a pod's node selector and required affinity
//	statefulset.go    StatefulSet, its update strategy and the labels it puts on pods
//	revision.go       ControllerRevision and the pod template it holds
//	claim.go          PersistentVolumeClaim
//	job.go            Job and its conditions
//	cronjob.go        CronJob and its Job template
//	service.go        Service and EndpointSlice
//	serviceaccount.go ServiceAccount and the kube-root-ca.crt ConfigMap
//	event.go          Event (core/v1), as controllers record them
//	lease.go          the node Lease
//	condition.go      the condition status values and the lookup of a condition
//	disruption.go     PodDisruptionBudget, the newer APIs' Condition, a selector printed as the API prints it
package api
