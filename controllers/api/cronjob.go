package api

import (
	"encoding/json"

	"github.com/kubecache/kubecache/meta"
)

// CronJob is a batch/v1 CronJob.
type CronJob struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            CronJobSpec   `json:"spec"`
	Status          CronJobStatus `json:"status"`
}

// CronJobSpec is a CronJob's spec.
type CronJobSpec struct {
	Schedule                   string          `json:"schedule"`
	TimeZone                   *string         `json:"timeZone,omitempty"`
	StartingDeadlineSeconds    *int64          `json:"startingDeadlineSeconds,omitempty"`
	ConcurrencyPolicy          string          `json:"concurrencyPolicy,omitempty"`
	Suspend                    *bool           `json:"suspend,omitempty"`
	JobTemplate                JobTemplateSpec `json:"jobTemplate"`
	SuccessfulJobsHistoryLimit *int32          `json:"successfulJobsHistoryLimit,omitempty"`
	FailedJobsHistoryLimit     *int32          `json:"failedJobsHistoryLimit,omitempty"`
}

// JobTemplateSpec is the Job a CronJob makes; its spec is carried as the
// server sent it.
type JobTemplateSpec struct {
	Metadata meta.ObjectMeta `json:"metadata,omitzero"`
	Spec     json.RawMessage `json:"spec,omitempty"`
}

// The concurrency policies of a CronJob.
const (
	AllowConcurrent   = "Allow"
	ForbidConcurrent  = "Forbid"
	ReplaceConcurrent = "Replace"
)

// CronJobStatus is a CronJob's status.
type CronJobStatus struct {
	Active             []ObjectReference `json:"active,omitempty"`
	LastScheduleTime   *meta.Time        `json:"lastScheduleTime,omitempty"`
	LastSuccessfulTime *meta.Time        `json:"lastSuccessfulTime,omitempty"`
}

// CronJobScheduledTimestampAnnotation is the annotation a CronJob's Job
// carries: the time it was scheduled for, RFC 3339 in the CronJob's time
// zone.
const CronJobScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"
