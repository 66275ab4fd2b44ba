package api

import "github.com/kubecache/kubecache/meta"

// DaemonSet is an apps/v1 DaemonSet.
type DaemonSet struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            DaemonSetSpec   `json:"spec"`
	Status          DaemonSetStatus `json:"status"`
}

// DaemonSetSpec is a DaemonSet's spec.
type DaemonSetSpec struct {
	Selector             *LabelSelector          `json:"selector"`
	Template             PodTemplate             `json:"template"`
	UpdateStrategy       DaemonSetUpdateStrategy `json:"updateStrategy,omitzero"`
	MinReadySeconds      int32                   `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit *int32                  `json:"revisionHistoryLimit,omitempty"`
}

// DaemonSetUpdateStrategy says how a DaemonSet replaces its pods when
// its template changes: RollingUpdate or OnDelete.
type DaemonSetUpdateStrategy struct {
	Type          string                  `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDaemonSet bounds a DaemonSet's rolling update.
type RollingUpdateDaemonSet struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty"`
}

// DaemonSetStatus is a DaemonSet's status, written whole by its
// controller.
type DaemonSetStatus struct {
	CurrentNumberScheduled int32  `json:"currentNumberScheduled"`
	NumberMisscheduled     int32  `json:"numberMisscheduled"`
	DesiredNumberScheduled int32  `json:"desiredNumberScheduled"`
	NumberReady            int32  `json:"numberReady"`
	ObservedGeneration     int64  `json:"observedGeneration,omitempty"`
	UpdatedNumberScheduled int32  `json:"updatedNumberScheduled,omitempty"`
	NumberAvailable        int32  `json:"numberAvailable,omitempty"`
	NumberUnavailable      int32  `json:"numberUnavailable,omitempty"`
	CollisionCount         *int32 `json:"collisionCount,omitempty"`
}

// PodTemplateGenerationLabel is the label holding the DaemonSet
// generation a daemon pod was made at.
const PodTemplateGenerationLabel = "pod-template-generation"
