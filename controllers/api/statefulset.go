package api

import (
	"encoding/json"

	"github.com/kubecache/kubecache/meta"
)

// StatefulSet is an apps/v1 StatefulSet.
type StatefulSet struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            StatefulSetSpec   `json:"spec"`
	Status          StatefulSetStatus `json:"status"`
}

// StatefulSetSpec is a StatefulSet's spec.
type StatefulSetSpec struct {
	Replicas             *int32                    `json:"replicas,omitempty"`
	Selector             *LabelSelector            `json:"selector"`
	Template             PodTemplate               `json:"template"`
	VolumeClaimTemplates []json.RawMessage         `json:"volumeClaimTemplates,omitempty"`
	ServiceName          string                    `json:"serviceName,omitempty"`
	PodManagementPolicy  string                    `json:"podManagementPolicy,omitempty"`
	UpdateStrategy       StatefulSetUpdateStrategy `json:"updateStrategy,omitzero"`
	RevisionHistoryLimit *int32                    `json:"revisionHistoryLimit,omitempty"`
	MinReadySeconds      int32                     `json:"minReadySeconds,omitempty"`
	Ordinals             *StatefulSetOrdinals      `json:"ordinals,omitempty"`
	// PersistentVolumeClaimRetentionPolicy says whether the claims made
	// from the templates are deleted with the set and when it scales
	// down; nil retains them.
	PersistentVolumeClaimRetentionPolicy *ClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`
}

// ClaimRetentionPolicy is a StatefulSet's
// persistentVolumeClaimRetentionPolicy: Retain or Delete for each case.
type ClaimRetentionPolicy struct {
	WhenDeleted string `json:"whenDeleted,omitempty"`
	WhenScaled  string `json:"whenScaled,omitempty"`
}

// The values of a ClaimRetentionPolicy.
const (
	RetainClaims = "Retain"
	DeleteClaims = "Delete"
)

// ClaimRetention returns the set's claim retention policy, Retain for
// what is unset.
func (s *StatefulSet) ClaimRetention() (whenDeleted, whenScaled string) {
	whenDeleted, whenScaled = RetainClaims, RetainClaims
	if p := s.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		whenDeleted, whenScaled = p.WhenDeleted, p.WhenScaled
	}
	return whenDeleted, whenScaled
}

// The pod management policies of a StatefulSet.
const (
	OrderedReadyPodManagement = "OrderedReady"
	ParallelPodManagement     = "Parallel"
)

// OnDeleteStrategy is the update strategy (of a StatefulSet or a
// DaemonSet) that replaces a pod only once someone deletes it.
const OnDeleteStrategy = "OnDelete"

// StatefulSetUpdateStrategy says how a StatefulSet replaces its pods
// when its template changes.
type StatefulSetUpdateStrategy struct {
	Type          string                            `json:"type,omitempty"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty"`
}

// RollingUpdateStatefulSetStrategy bounds a StatefulSet's rolling update:
// pods with an ordinal below Partition keep the current revision.
type RollingUpdateStatefulSetStrategy struct {
	Partition      *int32       `json:"partition,omitempty"`
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
}

// StatefulSetOrdinals moves the first ordinal of a StatefulSet's pods.
type StatefulSetOrdinals struct {
	Start int32 `json:"start,omitempty"`
}

// StatefulSetStatus is a StatefulSet's status, written whole by its
// controller.
type StatefulSetStatus struct {
	ObservedGeneration int64             `json:"observedGeneration,omitempty"`
	Replicas           int32             `json:"replicas"`
	ReadyReplicas      int32             `json:"readyReplicas,omitempty"`
	CurrentReplicas    int32             `json:"currentReplicas,omitempty"`
	UpdatedReplicas    int32             `json:"updatedReplicas,omitempty"`
	AvailableReplicas  int32             `json:"availableReplicas"`
	CurrentRevision    string            `json:"currentRevision,omitempty"`
	UpdateRevision     string            `json:"updateRevision,omitempty"`
	CollisionCount     *int32            `json:"collisionCount,omitempty"`
	Conditions         []json.RawMessage `json:"conditions,omitempty"`
}

// SpecReplicas returns spec.replicas, 1 when unset (the API's default).
func (s *StatefulSet) SpecReplicas() int32 {
	if s.Spec.Replicas == nil {
		return 1
	}
	return *s.Spec.Replicas
}

// StartOrdinal returns the ordinal of the set's first pod (0 unless
// spec.ordinals.start says otherwise).
func (s *StatefulSet) StartOrdinal() int {
	if s.Spec.Ordinals == nil {
		return 0
	}
	return int(s.Spec.Ordinals.Start)
}

// Partition returns the rolling update's partition: 0 unless set.
func (s *StatefulSet) Partition() int {
	ru := s.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.Partition == nil {
		return 0
	}
	return int(*ru.Partition)
}

// The labels a StatefulSet puts on its pods.
const (
	// StatefulSetPodNameLabel holds the pod's own name, so a Service can
	// select one member of the set.
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	// PodIndexLabel holds the pod's ordinal.
	PodIndexLabel = "apps.kubernetes.io/pod-index"
	// ControllerRevisionHashLabel names the ControllerRevision a pod was
	// made from (StatefulSets and DaemonSets).
	ControllerRevisionHashLabel = "controller-revision-hash"
)
