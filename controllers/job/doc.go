// Package job is the Job controller: it runs a Job's pods until enough
// of them succeed, or until too many fail.
//
// One reconcile of a Job (sync.go) counts its pods: active, succeeded,
// failed, terminating, ready. Then, in order:
//
//   - more failures than backoffLimit (default 6): the Job gets
//     FailureTarget (reason BackoffLimitExceeded), its active pods are
//     deleted, and once none is left it gets Failed, in a later status
//     write than FailureTarget, as the real controller writes them;
//   - enough successes (completions, or, without completions, one
//     success and no pod still running; for an Indexed Job, every index
//     succeeded): SuccessCriteriaMet (reason CompletionsReached), then
//     Complete with the completion time and a Completed event;
//   - otherwise, up to parallelism pods run (never more than the
//     completions still needed), created after a back-off of 10 s
//     doubling per failure (at most 6 minutes) on the cluster's clock. An
//     Indexed Job's pods are named "<job>-<index>-…" and carry their index
//     in the batch.kubernetes.io/job-completion-index annotation and label.
//
// A finished Job with ttlSecondsAfterFinished is deleted that long after
// it finished (the real cluster's TTL-after-finished controller).
//
// # Files
//
//	controller.go Controller, New, Run: informers and handlers
//	sync.go       the reconcile of one Job: counting, finishing, TTL
//	pods.go       creating pods (with their index) and deleting extras; back-off
package job
