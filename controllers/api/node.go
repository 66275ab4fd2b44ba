package api

import "github.com/kubecache/kubecache/meta"

// Node is the part of a core/v1 Node the scheduler, the simulated nodes
// and the node lifecycle controller use.
type Node struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            NodeSpec   `json:"spec"`
	Status          NodeStatus `json:"status"`
}

// NodeSpec is a node's spec.
type NodeSpec struct {
	PodCIDR       string   `json:"podCIDR,omitempty"`
	PodCIDRs      []string `json:"podCIDRs,omitempty"`
	ProviderID    string   `json:"providerID,omitempty"`
	Unschedulable bool     `json:"unschedulable,omitempty"`
	Taints        []Taint  `json:"taints,omitempty"`
}

// Taint keeps pods that do not tolerate it off a node (NoSchedule), or
// evicts them (NoExecute).
type Taint struct {
	Key       string     `json:"key"`
	Value     string     `json:"value,omitempty"`
	Effect    string     `json:"effect"`
	TimeAdded *meta.Time `json:"timeAdded,omitempty"`
}

// The taint effects.
const (
	TaintNoSchedule       = "NoSchedule"
	TaintPreferNoSchedule = "PreferNoSchedule"
	TaintNoExecute        = "NoExecute"
)

// The taints the node controllers manage.
const (
	TaintNodeNotReady      = "node.kubernetes.io/not-ready"
	TaintNodeUnreachable   = "node.kubernetes.io/unreachable"
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
)

// NodeStatus is a node's status, as the simulated nodes write it.
type NodeStatus struct {
	Capacity        ResourceList         `json:"capacity,omitempty"`
	Allocatable     ResourceList         `json:"allocatable,omitempty"`
	Conditions      []NodeCondition      `json:"conditions,omitempty"`
	Addresses       []NodeAddress        `json:"addresses,omitempty"`
	DaemonEndpoints *NodeDaemonEndpoints `json:"daemonEndpoints,omitempty"`
	NodeInfo        NodeSystemInfo       `json:"nodeInfo,omitzero"`
}

// NodeCondition is one condition of a node.
type NodeCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastHeartbeatTime  meta.Time       `json:"lastHeartbeatTime,omitzero"`
	LastTransitionTime meta.Time       `json:"lastTransitionTime,omitzero"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// NodeReady is the condition that says whether a node runs pods.
const NodeReady = "Ready"

// NodeAddress is one address of a node.
type NodeAddress struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// NodeDaemonEndpoints says where the kubelet listens.
type NodeDaemonEndpoints struct {
	KubeletEndpoint struct {
		Port int32 `json:"Port"`
	} `json:"kubeletEndpoint"`
}

// NodeSystemInfo describes a node's software.
type NodeSystemInfo struct {
	MachineID               string `json:"machineID"`
	SystemUUID              string `json:"systemUUID"`
	BootID                  string `json:"bootID"`
	KernelVersion           string `json:"kernelVersion"`
	OSImage                 string `json:"osImage"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
	KubeletVersion          string `json:"kubeletVersion"`
	KubeProxyVersion        string `json:"kubeProxyVersion,omitempty"`
	OperatingSystem         string `json:"operatingSystem"`
	Architecture            string `json:"architecture"`
}

// Condition returns the node's condition of type t, or nil.
func (s *NodeStatus) Condition(t string) *NodeCondition {
	return findCondition(s.Conditions, func(c *NodeCondition) bool { return c.Type == t })
}

// IsNodeReady reports whether the node's Ready condition is True.
func IsNodeReady(n *Node) bool {
	c := n.Status.Condition(NodeReady)
	return c != nil && c.Status == ConditionTrue
}

// Tolerates reports whether a toleration in ts tolerates taint.
func Tolerates(ts []Toleration, taint Taint) bool {
	for _, t := range ts {
		if t.Effect != "" && t.Effect != taint.Effect {
			continue
		}
		if t.Key == "" && t.Operator == "Exists" {
			return true
		}
		if t.Key != taint.Key {
			continue
		}
		switch t.Operator {
		case "Exists":
			return true
		case "", "Equal":
			if t.Value == taint.Value {
				return true
			}
		}
	}
	return false
}
