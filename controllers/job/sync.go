package job

import (
	"context"
	"reflect"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// The reasons and messages of a finishing Job.
const (
	reasonCompletionsReached = "CompletionsReached"
	msgCompletionsReached    = "Reached expected number of succeeded pods"
	reasonBackoffLimit       = "BackoffLimitExceeded"
	msgBackoffLimit          = "Job has reached the specified backoff limit"
)

// counts is what a Job's pods are doing.
type counts struct {
	active, terminating []*api.Pod
	succeeded, failed   []*api.Pod
	ready               int32
}

func countPods(pods []*api.Pod) counts {
	var c counts
	for _, p := range pods {
		switch {
		case p.Status.Phase == api.PodSucceeded:
			c.succeeded = append(c.succeeded, p)
		case p.Status.Phase == api.PodFailed:
			c.failed = append(c.failed, p)
		case p.DeletionTimestamp != nil:
			c.terminating = append(c.terminating, p)
		default:
			c.active = append(c.active, p)
			if api.IsPodReady(p) {
				c.ready++
			}
		}
	}
	return c
}

// sync reconciles the Job key.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cached, err := c.jobs.Lister().Namespace(ns).Get(name)
	if err != nil {
		c.expect.Forget(key)
		return nil
	}
	j, err := meta.Clone(cached)
	if err != nil {
		return err
	}
	now := c.env.Clock.Now()
	if finished(j) {
		return c.expireFinished(ctx, key, j, now)
	}
	pc := countPods(kit.OwnedBy(c.pods, j.UID))
	st := j.Status
	st.Conditions = append([]api.JobCondition(nil), j.Status.Conditions...)
	if st.StartTime == nil {
		t := meta.NewTime(now)
		st.StartTime = &t
	}
	st.Succeeded = max(st.Succeeded, int32(len(pc.succeeded)))
	st.Failed = max(st.Failed, int32(len(pc.failed)))
	terminating := int32(len(pc.terminating))
	st.Terminating, st.Ready = &terminating, &pc.ready
	st.UncountedTerminatedPods = &struct{}{}
	if indexed(j) {
		st.CompletedIndexes = formatIndexes(succeededIndexes(pc.succeeded))
	}

	// The final condition (Failed, Complete) comes in a later write than
	// the interim one (FailureTarget, SuccessCriteriaMet), once the
	// stored status holds it, as with the real controller, which first
	// records the interim condition and the pods it counted.
	var manageErr error
	switch {
	case st.Condition(api.JobFailureTarget) != nil || st.Failed > backoffLimit(j):
		setCondition(&st, api.JobFailureTarget, reasonBackoffLimit, msgBackoffLimit, now)
		manageErr = c.deletePods(ctx, j, pc.active)
		if len(pc.active) == 0 && terminating == 0 && j.Status.Condition(api.JobFailureTarget) != nil {
			setCondition(&st, api.JobFailed, reasonBackoffLimit, msgBackoffLimit, now)
			c.event(j, api.EventWarning, reasonBackoffLimit, "%s", msgBackoffLimit)
		}
	case st.Condition(api.JobSuccessCriteriaMet) != nil || succeededEnough(j, pc):
		setCondition(&st, api.JobSuccessCriteriaMet, reasonCompletionsReached, msgCompletionsReached, now)
		manageErr = c.deletePods(ctx, j, pc.active)
		if len(pc.active) == 0 && terminating == 0 && j.Status.Condition(api.JobSuccessCriteriaMet) != nil {
			setCondition(&st, api.JobComplete, reasonCompletionsReached, msgCompletionsReached, now)
			t := meta.NewTime(now)
			st.CompletionTime = &t
			c.event(j, api.EventNormal, "Completed", "Job completed")
		}
	case c.expect.Satisfied(key):
		manageErr = c.manage(ctx, key, j, pc, now)
	}
	st.Active = int32(len(pc.active))
	if !reflect.DeepEqual(st, j.Status) {
		err := kit.PutStatus(ctx, c.env.Client, kit.Target{Group: "batch", Version: "v1", Resource: "jobs"}, "batch/v1", "Job", &j.ObjectMeta, st, nil)
		if err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	return manageErr
}

// finished reports whether j has Complete or Failed.
func finished(j *api.Job) bool {
	return j.Status.Condition(api.JobComplete) != nil || j.Status.Condition(api.JobFailed) != nil
}

// succeededEnough reports whether j's successes finish it.
func succeededEnough(j *api.Job, pc counts) bool {
	if j.Spec.Completions == nil {
		return len(pc.succeeded) > 0 && len(pc.active) == 0
	}
	if indexed(j) {
		return int32(len(succeededIndexes(pc.succeeded))) >= *j.Spec.Completions
	}
	return int32(len(pc.succeeded)) >= *j.Spec.Completions
}

// setCondition adds a True condition of type t unless it is there.
func setCondition(st *api.JobStatus, t, reason, msg string, now time.Time) {
	if st.Condition(t) != nil {
		return
	}
	at := meta.NewTime(now)
	st.Conditions = append(st.Conditions, api.JobCondition{Type: t, Status: api.ConditionTrue, LastProbeTime: at, LastTransitionTime: at, Reason: reason, Message: msg})
}

// expireFinished deletes a finished Job once its ttlSecondsAfterFinished
// has passed, or comes back when it will have.
func (c *Controller) expireFinished(ctx context.Context, key string, j *api.Job, now time.Time) error {
	if j.Spec.TTLSecondsAfterFinished == nil || j.DeletionTimestamp != nil {
		return nil
	}
	var at time.Time
	for _, cond := range j.Status.Conditions {
		if (cond.Type == api.JobComplete || cond.Type == api.JobFailed) && cond.Status == api.ConditionTrue {
			at = cond.LastTransitionTime.Time
		}
	}
	expires := at.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second)
	if now.Before(expires) {
		c.loop.AddAt(key, expires)
		return nil
	}
	t := kit.Target{Group: "batch", Version: "v1", Resource: "jobs", Namespace: j.Namespace, Name: j.Name}
	err := kit.DeleteWith(ctx, c.env.Client, t, j.UID, "Background")
	if rest.IsNotFound(err) {
		return nil
	}
	return err
}

func backoffLimit(j *api.Job) int32 {
	if j.Spec.BackoffLimit == nil {
		return 6
	}
	return *j.Spec.BackoffLimit
}

func parallelism(j *api.Job) int32 {
	if j.Spec.Parallelism == nil {
		return 1
	}
	return *j.Spec.Parallelism
}

func indexed(j *api.Job) bool { return j.Spec.CompletionMode == "Indexed" && j.Spec.Completions != nil }

// indexOf returns the completion index of an Indexed Job's pod.
func indexOf(p *api.Pod) (int, bool) {
	v, err := strconv.Atoi(p.Annotations[indexAnnotation])
	return v, err == nil && v >= 0
}
