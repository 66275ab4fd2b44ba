package cronjob

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// Targets of the objects the controller writes.
var (
	cronJobTarget = kit.Target{Group: "batch", Version: "v1", Resource: "cronjobs"}
	jobTarget     = kit.Target{Group: "batch", Version: "v1", Resource: "jobs"}
)

// maxMissed is how many missed start times a CronJob may have before the
// controller warns (and starts only the latest), as the real one does.
const maxMissed = 100

// sync reconciles the CronJob key: bring status.active in line with its
// Jobs, start the Job of the latest schedule time that passed (as
// concurrencyPolicy, suspend and startingDeadlineSeconds allow), delete
// finished Jobs beyond the history limits, and come back at the next
// schedule time on the cluster's clock.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	// The clock is read before the caches, so they hold every change made
	// before now: a CronJob suspended before the clock reached a schedule
	// time is seen suspended at that time. Read after, the time could
	// have moved on past a copy of the CronJob from before the suspend.
	now := c.env.Clock.Now()
	cached, err := c.cjs.Lister().Namespace(ns).Get(name)
	if err != nil {
		return nil
	}
	cj, err := meta.Clone(cached)
	if err != nil {
		return err
	}
	jobs := kit.OwnedBy(c.jobs, cj.UID)
	cj, err = c.current(ctx, cj, jobs)
	if err != nil {
		return err
	}
	st, err := c.reconcileActive(ctx, cj, jobs)
	if err != nil {
		return err
	}
	was := cj.Status
	next, runErr := c.run(ctx, cj, &st, now)
	if !reflect.DeepEqual(st, was) {
		cj.Status = st
		err := kit.PutStatus(ctx, c.env.Client, cronJobTarget, apiVersion, kind, &cj.ObjectMeta, st, nil)
		if err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	if err := c.cleanupHistory(ctx, cj, jobs); err != nil {
		return err
	}
	if !next.IsZero() {
		c.loop.AddAt(key, next)
	}
	return nil
}

// finishedCondition returns "Complete" or "Failed" for a finished Job.
func finishedCondition(j *api.Job) (string, bool) {
	for _, t := range []string{api.JobComplete, api.JobFailed} {
		if j.Status.Condition(t) != nil {
			return t, true
		}
	}
	return "", false
}

// jobRef is the reference status.active holds.
func jobRef(j *api.Job) api.ObjectReference {
	return api.ObjectReference{Kind: "Job", Namespace: j.Namespace, Name: j.Name, UID: j.UID, APIVersion: "batch/v1", ResourceVersion: j.ResourceVersion}
}

// location returns the CronJob's time zone (its timeZone, or the
// controller's own, UTC here).
func location(cj *api.CronJob) (*time.Location, error) {
	if cj.Spec.TimeZone == nil {
		return time.UTC, nil
	}
	return time.LoadLocation(*cj.Spec.TimeZone)
}

// run starts the Job of the latest unmet schedule time at or before now,
// if it may, and returns when the CronJob should be looked at next (zero:
// never, until it changes).
func (c *Controller) run(ctx context.Context, cj *api.CronJob, st *api.CronJobStatus, now time.Time) (time.Time, error) {
	if cj.DeletionTimestamp != nil {
		return time.Time{}, nil
	}
	loc, err := location(cj)
	if err != nil {
		c.event(cj, api.EventWarning, "UnknownTimeZone", "invalid timeZone: %q: %s", *cj.Spec.TimeZone, err)
		return time.Time{}, nil
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return time.Time{}, nil
	}
	sched, err := Parse(cj.Spec.Schedule)
	if err != nil {
		c.event(cj, api.EventWarning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return time.Time{}, nil
	}
	now = now.In(loc)
	next := sched.Next(now)
	scheduled, missed := c.latestUnmet(cj, sched, now)
	if scheduled.IsZero() {
		return next, nil
	}
	if missed > maxMissed {
		c.event(cj, api.EventWarning, "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && scheduled.Add(time.Duration(*d)*time.Second).Before(now) {
		c.event(cj, api.EventWarning, "MissSchedule", "Missed scheduled time to start a job: %s", scheduled.UTC().Format(time.RFC1123Z))
		return next, nil
	}
	name := jobName(cj, scheduled)
	if slices.ContainsFunc(st.Active, func(r api.ObjectReference) bool { return r.Name == name }) {
		// Started by a reconcile whose status write was lost.
		t := meta.NewTime(scheduled)
		st.LastScheduleTime = &t
		return next, nil
	}
	if st.LastScheduleTime != nil && st.LastScheduleTime.Equal(scheduled) {
		return next, nil
	}
	switch cj.Spec.ConcurrencyPolicy {
	case api.ForbidConcurrent:
		if len(st.Active) > 0 {
			c.event(cj, api.EventNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
			return next, nil
		}
	case api.ReplaceConcurrent:
		for _, r := range st.Active {
			if err := c.deleteJob(ctx, cj, r.Namespace, r.Name, r.UID); err != nil {
				return time.Time{}, err
			}
		}
		st.Active = nil
	}
	created, err := c.createJob(ctx, cj, name, scheduled, loc)
	if err != nil {
		return time.Time{}, err
	}
	if created != nil {
		st.Active = append(st.Active, jobRef(created))
	}
	t := meta.NewTime(scheduled)
	st.LastScheduleTime = &t
	return next, nil
}

// latestUnmet returns the latest schedule time at or before now that has
// not been run (after lastScheduleTime, or the CronJob's creation, and
// within startingDeadlineSeconds when set), and how many were passed
// over; the zero time when there is none.
func (c *Controller) latestUnmet(cj *api.CronJob, sched *Schedule, now time.Time) (time.Time, int) {
	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if limit := now.Add(-time.Duration(*d) * time.Second); limit.After(earliest) {
			earliest = limit
		}
	}
	var latest time.Time
	n := 0
	for t := sched.Next(earliest.In(now.Location())); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		latest = t
		n++
		if n > maxMissed {
			// Too many to walk one by one: the latest is the one before
			// the next time after now.
			return lastBefore(sched, now), n
		}
	}
	return latest, n
}

// lastBefore returns the latest schedule time at or before now, looking
// back at most a day at a time.
func lastBefore(sched *Schedule, now time.Time) time.Time {
	for back := time.Hour; back <= 366*24*time.Hour; back *= 2 {
		var latest time.Time
		for t := sched.Next(now.Add(-back)); !t.IsZero() && !t.After(now); t = sched.Next(t) {
			latest = t
		}
		if !latest.IsZero() {
			return latest
		}
	}
	return time.Time{}
}

// jobName is the name of the Job for a schedule time: the CronJob's name
// and the time in minutes since the epoch.
func jobName(cj *api.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}

// newJob is the body of a Job a CronJob creates.
type newJob struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            any `json:"spec"`
}

// createJob creates the Job of cj for scheduled; an existing one of the
// same name that cj owns counts as created, one it does not own as
// someone else's (nil, no error).
func (c *Controller) createJob(ctx context.Context, cj *api.CronJob, name string, scheduled time.Time, loc *time.Location) (*api.Job, error) {
	annotations := maps.Clone(cj.Spec.JobTemplate.Metadata.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[api.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	var spec any = map[string]any{}
	if len(cj.Spec.JobTemplate.Spec) > 0 {
		spec = cj.Spec.JobTemplate.Spec
	}
	body := &newJob{
		TypeMeta: meta.TypeMeta{APIVersion: apiVersion, Kind: "Job"},
		ObjectMeta: meta.ObjectMeta{
			Name: name, Namespace: cj.Namespace,
			Labels: maps.Clone(cj.Spec.JobTemplate.Metadata.Labels), Annotations: annotations,
			OwnerReferences: []meta.OwnerReference{api.ControllerRef(&cj.ObjectMeta, apiVersion, kind)},
		},
		Spec: spec,
	}
	var out api.Job
	err := kit.Create(ctx, c.env.Client, jobTarget.In(cj.Namespace), body, &out)
	switch {
	case err == nil:
		c.event(cj, api.EventNormal, "SuccessfulCreate", "Created job %v", out.Name)
		return &out, nil
	case rest.IsAlreadyExists(err):
		t := jobTarget.In(cj.Namespace)
		t.Name = name
		if err := kit.Get(ctx, c.env.Client, t, &out); err != nil {
			return nil, err
		}
		if ref := api.ControllerOf(&out.ObjectMeta); ref == nil || ref.UID != cj.UID {
			return nil, nil
		}
		return &out, nil
	default:
		c.event(cj, api.EventWarning, "FailedCreate", "Error creating job: %v", err)
		return nil, err
	}
}

// deleteJob deletes a Job of cj with its pods (background propagation).
func (c *Controller) deleteJob(ctx context.Context, cj *api.CronJob, namespace, name, uid string) error {
	t := jobTarget.In(namespace)
	t.Name = name
	err := kit.DeleteWith(ctx, c.env.Client, t, uid, "Background")
	switch {
	case err == nil:
		c.event(cj, api.EventNormal, "SuccessfulDelete", "Deleted job %v", name)
	case rest.IsNotFound(err):
	default:
		c.event(cj, api.EventWarning, "FailedDelete", "Deleted job: %v", err)
		return err
	}
	return nil
}

// cleanupHistory deletes the oldest finished Jobs beyond
// successfulJobsHistoryLimit (default 3) and failedJobsHistoryLimit
// (default 1).
func (c *Controller) cleanupHistory(ctx context.Context, cj *api.CronJob, jobs []*api.Job) error {
	var ok, failed []*api.Job
	for _, j := range jobs {
		switch cond, done := finishedCondition(j); {
		case !done || j.DeletionTimestamp != nil:
		case cond == api.JobComplete:
			ok = append(ok, j)
		default:
			failed = append(failed, j)
		}
	}
	for _, group := range []struct {
		jobs  []*api.Job
		limit *int32
		def   int32
	}{{ok, cj.Spec.SuccessfulJobsHistoryLimit, 3}, {failed, cj.Spec.FailedJobsHistoryLimit, 1}} {
		limit := group.def
		if group.limit != nil {
			limit = *group.limit
		}
		slices.SortFunc(group.jobs, byStartTime)
		for _, j := range group.jobs[:max(0, len(group.jobs)-int(limit))] {
			if err := c.deleteJob(ctx, cj, j.Namespace, j.Name, j.UID); err != nil {
				return err
			}
		}
	}
	return nil
}

// byStartTime orders Jobs by start time (unstarted last), then name.
func byStartTime(a, b *api.Job) int {
	switch {
	case a.Status.StartTime == nil && b.Status.StartTime != nil:
		return 1
	case a.Status.StartTime != nil && b.Status.StartTime == nil:
		return -1
	case a.Status.StartTime != nil && !a.Status.StartTime.Equal(b.Status.StartTime.Time):
		return a.Status.StartTime.Compare(b.Status.StartTime.Time)
	}
	if a.Name < b.Name {
		return -1
	}
	return 1
}
