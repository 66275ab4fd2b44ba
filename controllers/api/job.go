package api

import "github.com/kubecache/kubecache/meta"

// Job is a batch/v1 Job.
type Job struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            JobSpec   `json:"spec"`
	Status          JobStatus `json:"status"`
}

// JobSpec is the part of a Job's spec the Job controller reads.
type JobSpec struct {
	Parallelism             *int32         `json:"parallelism,omitempty"`
	Completions             *int32         `json:"completions,omitempty"`
	BackoffLimit            *int32         `json:"backoffLimit,omitempty"`
	CompletionMode          string         `json:"completionMode,omitempty"`
	Suspend                 *bool          `json:"suspend,omitempty"`
	TTLSecondsAfterFinished *int32         `json:"ttlSecondsAfterFinished,omitempty"`
	Selector                *LabelSelector `json:"selector,omitempty"`
	Template                PodTemplate    `json:"template"`
}

// JobStatus is a Job's status, written whole by its controller.
type JobStatus struct {
	Conditions              []JobCondition `json:"conditions,omitempty"`
	StartTime               *meta.Time     `json:"startTime,omitempty"`
	CompletionTime          *meta.Time     `json:"completionTime,omitempty"`
	Active                  int32          `json:"active,omitempty"`
	Succeeded               int32          `json:"succeeded,omitempty"`
	Failed                  int32          `json:"failed,omitempty"`
	Terminating             *int32         `json:"terminating,omitempty"`
	CompletedIndexes        string         `json:"completedIndexes,omitempty"`
	UncountedTerminatedPods *struct{}      `json:"uncountedTerminatedPods,omitempty"`
	Ready                   *int32         `json:"ready,omitempty"`
}

// JobCondition is one condition of a Job.
type JobCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastProbeTime      meta.Time       `json:"lastProbeTime,omitzero"`
	LastTransitionTime meta.Time       `json:"lastTransitionTime,omitzero"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// The condition types of a Job.
const (
	JobComplete           = "Complete"
	JobFailed             = "Failed"
	JobSuccessCriteriaMet = "SuccessCriteriaMet"
	JobFailureTarget      = "FailureTarget"
	JobSuspended          = "Suspended"
)

// Condition returns the Job's condition of type t when it is True, or
// nil.
func (s *JobStatus) Condition(t string) *JobCondition {
	return findCondition(s.Conditions, func(c *JobCondition) bool { return c.Type == t && c.Status == ConditionTrue })
}
