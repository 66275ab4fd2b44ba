package api

import (
	"time"

	"github.com/kubecache/kubecache/meta"
)

// Pod is the part of a core/v1 Pod the controllers, the scheduler and the
// simulated nodes use. Its status is complete: the simulated nodes write
// it whole through the status subresource.
type Pod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            PodSpec   `json:"spec"`
	Status          PodStatus `json:"status"`
}

// PodSpec is what the scheduler and the simulated nodes read of a pod's
// spec.
type PodSpec struct {
	NodeName                      string            `json:"nodeName,omitempty"`
	SchedulerName                 string            `json:"schedulerName,omitempty"`
	Containers                    []Container       `json:"containers"`
	InitContainers                []Container       `json:"initContainers,omitempty"`
	NodeSelector                  map[string]string `json:"nodeSelector,omitempty"`
	Affinity                      *Affinity         `json:"affinity,omitempty"`
	Tolerations                   []Toleration      `json:"tolerations,omitempty"`
	TerminationGracePeriodSeconds *int64            `json:"terminationGracePeriodSeconds,omitempty"`
	RestartPolicy                 string            `json:"restartPolicy,omitempty"`
	Hostname                      string            `json:"hostname,omitempty"`
	Subdomain                     string            `json:"subdomain,omitempty"`
	Volumes                       []Volume          `json:"volumes,omitempty"`
}

// Volume is what is read of one of a pod's volumes: the claim it
// mounts, if it is a persistentVolumeClaim volume.
type Volume struct {
	Name                  string `json:"name"`
	PersistentVolumeClaim *struct {
		ClaimName string `json:"claimName"`
	} `json:"persistentVolumeClaim,omitempty"`
}

// UsesClaim reports whether the pod mounts the PersistentVolumeClaim
// name of its namespace.
func (s *PodSpec) UsesClaim(name string) bool {
	for _, v := range s.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == name {
			return true
		}
	}
	return false
}

// The restart policies of a pod.
const (
	RestartAlways    = "Always"
	RestartOnFailure = "OnFailure"
	RestartNever     = "Never"
)

// Container is what is read of one container.
type Container struct {
	Name           string               `json:"name"`
	Image          string               `json:"image,omitempty"`
	Resources      ResourceRequirements `json:"resources,omitzero"`
	ReadinessProbe *Probe               `json:"readinessProbe,omitempty"`
	Ports          []ContainerPort      `json:"ports,omitempty"`
}

// ContainerPort is one port a container exposes.
type ContainerPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	Requests ResourceList `json:"requests,omitempty"`
	Limits   ResourceList `json:"limits,omitempty"`
}

// Probe is the part of a probe that decides when a container turns ready.
type Probe struct {
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	PeriodSeconds       int32 `json:"periodSeconds,omitempty"`
}

// Affinity holds the scheduling constraints of a pod; only node affinity
// is honoured.
type Affinity struct {
	NodeAffinity *NodeAffinity `json:"nodeAffinity,omitempty"`
}

// NodeAffinity is the required and preferred node affinity of a pod.
type NodeAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  *NodeSelector             `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// NodeSelector is a list of terms, any of which a node must match.
type NodeSelector struct {
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
}

// NodeSelectorTerm is matched when all its requirements are.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty"`
	MatchFields      []NodeSelectorRequirement `json:"matchFields,omitempty"`
}

// NodeSelectorRequirement is one test of a node's label (or field).
type NodeSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// PreferredSchedulingTerm is a weighted preference for nodes.
type PreferredSchedulingTerm struct {
	Weight     int32            `json:"weight"`
	Preference NodeSelectorTerm `json:"preference"`
}

// Toleration lets a pod ignore a taint.
type Toleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// PodStatus is the whole status of a pod.
type PodStatus struct {
	ObservedGeneration    int64             `json:"observedGeneration,omitempty"`
	Phase                 string            `json:"phase,omitempty"`
	Conditions            []PodCondition    `json:"conditions,omitempty"`
	Message               string            `json:"message,omitempty"`
	Reason                string            `json:"reason,omitempty"`
	NominatedNodeName     string            `json:"nominatedNodeName,omitempty"`
	HostIP                string            `json:"hostIP,omitempty"`
	HostIPs               []PodIP           `json:"hostIPs,omitempty"`
	PodIP                 string            `json:"podIP,omitempty"`
	PodIPs                []PodIP           `json:"podIPs,omitempty"`
	StartTime             *meta.Time        `json:"startTime,omitempty"`
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses     []ContainerStatus `json:"containerStatuses,omitempty"`
	QOSClass              string            `json:"qosClass,omitempty"`
}

// The phases of a pod.
const (
	PodPending   = "Pending"
	PodRunning   = "Running"
	PodSucceeded = "Succeeded"
	PodFailed    = "Failed"
	PodUnknown   = "Unknown"
)

// PodIP is one address of a pod or its host.
type PodIP struct {
	IP string `json:"ip"`
}

// PodCondition is one condition of a pod.
type PodCondition struct {
	Type               string          `json:"type"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty"`
	Status             ConditionStatus `json:"status"`
	LastProbeTime      *meta.Time      `json:"lastProbeTime"`
	LastTransitionTime meta.Time       `json:"lastTransitionTime,omitzero"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// The pod condition types.
const (
	PodScheduled               = "PodScheduled"
	PodReadyToStartContainers  = "PodReadyToStartContainers"
	PodInitialized             = "Initialized"
	PodContainersReady         = "ContainersReady"
	PodReady                   = "Ready"
	PodDisruptionTarget        = "DisruptionTarget"
	ReasonUnschedulable        = "Unschedulable"
	ReasonContainersNotReady   = "ContainersNotReady"
	ReasonPodCompleted         = "PodCompleted"
	ReasonTerminationByKubelet = "TerminationByKubelet"
)

// ContainerStatus is the state of one container.
type ContainerStatus struct {
	Name         string         `json:"name"`
	State        ContainerState `json:"state"`
	LastState    ContainerState `json:"lastState"`
	Ready        bool           `json:"ready"`
	RestartCount int32          `json:"restartCount"`
	Image        string         `json:"image"`
	ImageID      string         `json:"imageID"`
	ContainerID  string         `json:"containerID,omitempty"`
	Started      *bool          `json:"started,omitempty"`
}

// ContainerState is one of waiting, running and terminated (or none).
type ContainerState struct {
	Waiting    *StateWaiting    `json:"waiting,omitempty"`
	Running    *StateRunning    `json:"running,omitempty"`
	Terminated *StateTerminated `json:"terminated,omitempty"`
}

// StateWaiting is a container not yet (or not again) running.
type StateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// StateRunning is a running container.
type StateRunning struct {
	StartedAt meta.Time `json:"startedAt,omitzero"`
}

// StateTerminated is a container that exited.
type StateTerminated struct {
	ExitCode    int32     `json:"exitCode"`
	Reason      string    `json:"reason,omitempty"`
	Message     string    `json:"message,omitempty"`
	StartedAt   meta.Time `json:"startedAt,omitzero"`
	FinishedAt  meta.Time `json:"finishedAt,omitzero"`
	ContainerID string    `json:"containerID,omitempty"`
}

// Condition returns the pod's condition of type t, or nil.
func (s *PodStatus) Condition(t string) *PodCondition {
	return findCondition(s.Conditions, func(c *PodCondition) bool { return c.Type == t })
}

// SetCondition adds c or replaces the condition of its type, keeping the
// old LastTransitionTime when the status did not change.
func (s *PodStatus) SetCondition(c PodCondition) {
	if old := s.Condition(c.Type); old != nil {
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		*old = c
		return
	}
	s.Conditions = append(s.Conditions, c)
}

// StartTime returns when the container last started, or the zero time.
func (cs *ContainerStatus) StartTime() time.Time {
	if cs.State.Running != nil {
		return cs.State.Running.StartedAt.Time
	}
	return time.Time{}
}
