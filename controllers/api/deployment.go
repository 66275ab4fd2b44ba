package api

import (
	"math"

	"github.com/kubecache/kubecache/meta"
)

// Deployment is an apps/v1 Deployment.
type Deployment struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            DeploymentSpec   `json:"spec"`
	Status          DeploymentStatus `json:"status"`
}

// DeploymentSpec is a Deployment's spec.
type DeploymentSpec struct {
	Replicas                *int32             `json:"replicas,omitempty"`
	Selector                *LabelSelector     `json:"selector"`
	Template                PodTemplate        `json:"template"`
	Strategy                DeploymentStrategy `json:"strategy,omitzero"`
	MinReadySeconds         int32              `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit    *int32             `json:"revisionHistoryLimit,omitempty"`
	Paused                  bool               `json:"paused,omitempty"`
	ProgressDeadlineSeconds *int32             `json:"progressDeadlineSeconds,omitempty"`
}

// DeploymentStrategy says how a Deployment replaces old pods with new.
type DeploymentStrategy struct {
	Type          string                   `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// The deployment strategies.
const (
	RecreateStrategy      = "Recreate"
	RollingUpdateStrategy = "RollingUpdate"
)

// RollingUpdateDeployment bounds a rolling update.
type RollingUpdateDeployment struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentStatus is a Deployment's status, written whole by its
// controller.
type DeploymentStatus struct {
	ObservedGeneration  int64                 `json:"observedGeneration,omitempty"`
	Replicas            int32                 `json:"replicas,omitempty"`
	UpdatedReplicas     int32                 `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32                 `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty"`
	TerminatingReplicas *int32                `json:"terminatingReplicas,omitempty"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty"`
	CollisionCount      *int32                `json:"collisionCount,omitempty"`
}

// DeploymentCondition is one condition of a Deployment.
type DeploymentCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastUpdateTime     meta.Time       `json:"lastUpdateTime,omitzero"`
	LastTransitionTime meta.Time       `json:"lastTransitionTime,omitzero"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// The condition types of a Deployment.
const (
	DeploymentAvailable      = "Available"
	DeploymentProgressing    = "Progressing"
	DeploymentReplicaFailure = "ReplicaFailure"
)

// SpecReplicas returns spec.replicas, 1 when unset (the API's default).
func (d *Deployment) SpecReplicas() int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// StrategyType returns the strategy's type, RollingUpdate when unset.
func (d *Deployment) StrategyType() string {
	if d.Spec.Strategy.Type == "" {
		return RollingUpdateStrategy
	}
	return d.Spec.Strategy.Type
}

// RollingParams returns maxSurge and maxUnavailable, "25%" each when
// unset (the API's defaults).
func (d *Deployment) RollingParams() (maxSurge, maxUnavailable IntOrString) {
	maxSurge, maxUnavailable = FromString("25%"), FromString("25%")
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		if ru.MaxSurge != nil {
			maxSurge = *ru.MaxSurge
		}
		if ru.MaxUnavailable != nil {
			maxUnavailable = *ru.MaxUnavailable
		}
	}
	return maxSurge, maxUnavailable
}

// RevisionHistoryLimit returns spec.revisionHistoryLimit, 10 when unset.
func (d *Deployment) RevisionHistoryLimit() int32 {
	if d.Spec.RevisionHistoryLimit == nil {
		return 10
	}
	return *d.Spec.RevisionHistoryLimit
}

// ProgressDeadline returns spec.progressDeadlineSeconds (600 when unset)
// and whether the Deployment has one: math.MaxInt32 means none.
func (d *Deployment) ProgressDeadline() (int32, bool) {
	if d.Spec.ProgressDeadlineSeconds == nil {
		return 600, true
	}
	s := *d.Spec.ProgressDeadlineSeconds
	return s, s != math.MaxInt32
}

// Condition returns the status's condition of type t, or nil.
func (s *DeploymentStatus) Condition(t string) *DeploymentCondition {
	return findCondition(s.Conditions, func(c *DeploymentCondition) bool { return c.Type == t })
}

// SetCondition adds c or replaces the condition of its type. As in the
// real controller, a condition with the same status and reason is left
// alone, and one with the same status keeps its LastTransitionTime.
func (s *DeploymentStatus) SetCondition(c DeploymentCondition) {
	old := s.Condition(c.Type)
	if old != nil && old.Status == c.Status && old.Reason == c.Reason {
		return
	}
	if old != nil && old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	s.RemoveCondition(c.Type)
	s.Conditions = append(s.Conditions, c)
}

// RemoveCondition removes the condition of type t.
func (s *DeploymentStatus) RemoveCondition(t string) {
	var kept []DeploymentCondition
	for _, c := range s.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	s.Conditions = kept
}
