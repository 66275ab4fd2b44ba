package api

import "github.com/kubecache/kubecache/meta"

// ReplicaSet is an apps/v1 ReplicaSet.
type ReplicaSet struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            ReplicaSetSpec   `json:"spec"`
	Status          ReplicaSetStatus `json:"status"`
}

// ReplicaSetSpec is a ReplicaSet's spec.
type ReplicaSetSpec struct {
	Replicas        *int32         `json:"replicas,omitempty"`
	MinReadySeconds int32          `json:"minReadySeconds,omitempty"`
	Selector        *LabelSelector `json:"selector"`
	Template        PodTemplate    `json:"template"`
}

// ReplicaSetStatus is a ReplicaSet's status, written whole by its
// controller.
type ReplicaSetStatus struct {
	Replicas             int32                 `json:"replicas"`
	FullyLabeledReplicas int32                 `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32                 `json:"availableReplicas,omitempty"`
	TerminatingReplicas  *int32                `json:"terminatingReplicas,omitempty"`
	ObservedGeneration   int64                 `json:"observedGeneration,omitempty"`
	Conditions           []ReplicaSetCondition `json:"conditions,omitempty"`
}

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime meta.Time       `json:"lastTransitionTime,omitzero"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ReplicaSetReplicaFailure is the condition a ReplicaSet gets when it
// cannot create or delete pods.
const ReplicaSetReplicaFailure = "ReplicaFailure"

// SpecReplicas returns spec.replicas, 1 when unset (the API's default).
func (rs *ReplicaSet) SpecReplicas() int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}
