package cronjob

import (
	"context"
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/rest"
)

// current returns the CronJob a sync acts on: cj, the cache's copy, or
// the server's when a running Job of cj is missing from the cached
// active list and the server's list holds it. The CronJob and Job caches
// are fed by two watches, so a Job the controller started can reach the
// cache before the status write that listed it; acting on the stale
// list would start another run under Forbid. The real controller asks
// the server in the same case.
func (c *Controller) current(ctx context.Context, cj *api.CronJob, jobs []*api.Job) (*api.CronJob, error) {
	var unlisted []string
	for _, j := range jobs {
		if _, done := finishedCondition(j); !done && j.DeletionTimestamp == nil && !listed(cj.Status.Active, j.UID) {
			unlisted = append(unlisted, j.UID)
		}
	}
	if len(unlisted) == 0 {
		return cj, nil
	}
	t := cronJobTarget.In(cj.Namespace)
	t.Name = cj.Name
	var live api.CronJob
	switch err := kit.Get(ctx, c.env.Client, t, &live); {
	case rest.IsNotFound(err):
		return cj, nil
	case err != nil:
		return nil, err
	}
	if live.UID != cj.UID || !slices.ContainsFunc(unlisted, func(uid string) bool { return listed(live.Status.Active, uid) }) {
		return cj, nil
	}
	return &live, nil
}

// listed reports whether the active list holds the Job with uid.
func listed(active []api.ObjectReference, uid string) bool {
	return slices.ContainsFunc(active, func(r api.ObjectReference) bool { return r.UID == uid })
}

// reconcileActive returns cj's status with the active list holding its
// running Jobs: finished ones leave it (a SawCompletedJob event,
// lastSuccessfulTime for a completed one) and ones gone from the server
// leave it (MissingJob). A listed Job the cache lacks is looked up on
// the server first, as the real controller does, since the Job watch may
// not have delivered it yet. A running Job the list lacks is someone
// else's or forgotten: an UnexpectedJob warning, and it stays out.
func (c *Controller) reconcileActive(ctx context.Context, cj *api.CronJob, jobs []*api.Job) (api.CronJobStatus, error) {
	st := cj.Status
	st.Active = slices.Clone(cj.Status.Active)
	byUID := map[string]*api.Job{}
	for _, j := range jobs {
		byUID[j.UID] = j
		cond, done := finishedCondition(j)
		inList := listed(st.Active, j.UID)
		switch {
		case !done && !inList && j.DeletionTimestamp == nil:
			c.event(cj, api.EventWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.Name)
		case done && inList:
			c.event(cj, api.EventNormal, "SawCompletedJob", "Saw completed job: %s, condition: %v", j.Name, cond)
			st.Active = slices.DeleteFunc(st.Active, func(r api.ObjectReference) bool { return r.UID == j.UID })
			if cond == api.JobComplete && j.Status.CompletionTime != nil &&
				(st.LastSuccessfulTime == nil || st.LastSuccessfulTime.Before(j.Status.CompletionTime.Time)) {
				t := *j.Status.CompletionTime
				st.LastSuccessfulTime = &t
			}
		}
	}
	kept := st.Active[:0]
	for _, r := range st.Active {
		if _, ok := byUID[r.UID]; !ok {
			gone, err := c.jobGone(ctx, r)
			if err != nil {
				return api.CronJobStatus{}, err
			}
			if gone {
				c.event(cj, api.EventNormal, "MissingJob", "Active job went missing: %v", r.Name)
				continue
			}
		}
		kept = append(kept, r)
	}
	st.Active = kept
	if len(st.Active) == 0 {
		st.Active = nil
	}
	return st, nil
}

// jobGone reports whether the server no longer holds the Job r names
// (none of that name, or another one by now).
func (c *Controller) jobGone(ctx context.Context, r api.ObjectReference) (bool, error) {
	t := jobTarget.In(r.Namespace)
	t.Name = r.Name
	var j api.Job
	switch err := kit.Get(ctx, c.env.Client, t, &j); {
	case rest.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, err
	}
	return j.UID != r.UID, nil
}
