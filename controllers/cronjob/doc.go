// Package cronjob is the CronJob controller: it starts a CronJob's Jobs
// at the times its schedule names, on the cluster's clock (kit.Env.Clock),
// so a test moves time instead of waiting for it.
//
// The schedule (schedule.go) is the standard five-field cron line
// (minute, hour, day of month, month, day of week) with lists, ranges,
// steps, month and weekday names and the @yearly … @hourly shorthands,
// read in the CronJob's timeZone (UTC without one). When both day fields
// are restricted a day matching either fires, as in cron.
//
// One reconcile (sync.go): status.active is brought in line with the
// CronJob's Jobs (active.go: finished ones leave it with a SawCompletedJob
// event and set lastSuccessfulTime; ones the server no longer holds leave
// with MissingJob; a running one it lacks is an UnexpectedJob). Where the
// caches disagree, the server decides, as for the real controller: a
// listed Job the cache lacks is looked up, and a running Job missing from
// the cached list makes the sync act on the server's copy of the CronJob
// if that lists it. Unless the CronJob is suspended, the latest
// schedule time that has passed since lastScheduleTime (or its creation),
// and within startingDeadlineSeconds when set, gets its Job, named
// "<cronjob>-<scheduled time in minutes since the epoch>", with the
// batch.kubernetes.io/cronjob-scheduled-timestamp annotation — unless
// concurrencyPolicy Forbid finds a Job still active (JobAlreadyActive);
// Replace deletes the active ones first. Finished Jobs beyond
// successfulJobsHistoryLimit (3) and failedJobsHistoryLimit (1) are
// deleted, oldest first. The CronJob is looked at again at its next
// schedule time. Events are the real controller's: SuccessfulCreate
// "Created job NAME", SuccessfulDelete "Deleted job NAME",
// UnparseableSchedule, UnknownTimeZone, TooManyMissedTimes,
// MissSchedule.
//
// # Files
//
//	controller.go Controller, New, Run: informers and handlers
//	active.go     status.active against the Jobs, checked with the server where the caches lag
//	schedule.go   Parse and Schedule.Next: cron schedules
//	sync.go       the reconcile of one CronJob: starting, replacing, history
package cronjob
