package cronjob_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/fakeapiserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var cronJobs = kit.Target{Group: "batch", Version: "v1", Resource: "cronjobs", Namespace: "default"}

// t0 is the clusters' start: half a minute past midnight.
var t0 = time.Date(2026, 1, 1, 0, 0, 30, 0, time.UTC)

func start(t *testing.T) (*cluster.Cluster, *fakeapiserver.FakeClock) {
	clock := fakeapiserver.NewFakeClock(t0)
	c := cluster.Start(t, cluster.Options{
		Server:      fakeapiserver.Options{Clock: clock},
		Controllers: []string{controllers.CronJob, controllers.Job, controllers.Scheduler}, Nodes: 1,
	})
	cluster.Await(t, c, "nodes", "a node", func(ns []*api.Node) bool { return len(ns) == 1 })
	return c, clock
}

// cronJobBody is a CronJob whose Jobs run one pod; runFor, when set, is
// how long the pod runs (default: one second).
func cronJobBody(name, schedule, runFor string, spec map[string]any) map[string]any {
	annotations := map[string]string{}
	if runFor != "" {
		annotations["sim.kubecache.dev/exit-after"] = runFor
	}
	s := map[string]any{
		"schedule": schedule,
		"jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{
			"metadata": map[string]any{"annotations": annotations},
			"spec":     map[string]any{"restartPolicy": "Never", "containers": []map[string]any{{"name": "tick", "image": "busybox"}}},
		}}},
	}
	for k, v := range spec {
		s[k] = v
	}
	return map[string]any{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": map[string]any{"name": name, "namespace": "default"}, "spec": s}
}

// seenByController waits until the controllers' shared CronJob informer
// has caught up with resourceVersion rv.
func seenByController(t *testing.T, c *cluster.Cluster, rv string) {
	t.Helper()
	inf, err := kit.Shared[*api.CronJob](c.Manager.Env(), "cronjobs.v1.batch")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, inf.WaitForFreshness(ctx, rv), "the controller never saw resourceVersion %s", rv)
}

func jobNameAt(cj string, t time.Time) string { return fmt.Sprintf("%s-%d", cj, t.Unix()/60) }

func jobNames(js []*api.Job) []string {
	var out []string
	for _, j := range js {
		if j.DeletionTimestamp == nil {
			out = append(out, j.Name)
		}
	}
	return out
}

// TestCronJobFiresOnTheClockAndKeepsHistory runs "*/5 * * * *" with a
// successful-history limit of 1: nothing runs until the clock reaches
// 00:05, when the Job tick-<minutes> starts and is listed as active;
// when it completes it leaves the active list and lastSuccessfulTime is
// set; after the 00:10 Job completes, only it is kept.
func TestCronJobFiresOnTheClockAndKeepsHistory(t *testing.T) {
	c, clock := start(t)
	require.NoError(t, kit.Create(context.Background(), c.Client, cronJobs, cronJobBody("tick", "*/5 * * * *", "", map[string]any{"successfulJobsHistoryLimit": 1}), nil))
	cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "tick", "the CronJob", func(*api.CronJob) bool { return true })
	clock.Step(4 * time.Minute)
	assert.Empty(t, jobNames(cluster.Await(t, c, "jobs.v1.batch", "the jobs", func([]*api.Job) bool { return true })), "a Job before its time")

	clock.Step(30 * time.Second) // 00:05:00
	first := jobNameAt("tick", time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC))
	cj := cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "tick", "one active Job", func(cj *api.CronJob) bool { return len(cj.Status.Active) == 1 })
	assert.Equal(t, first, cj.Status.Active[0].Name)
	require.NotNil(t, cj.Status.LastScheduleTime)
	assert.Equal(t, time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC), cj.Status.LastScheduleTime.Time)
	j := cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", first, "the Job", func(*api.Job) bool { return true })
	assert.Equal(t, "2026-01-01T00:05:00Z", j.Annotations[api.CronJobScheduledTimestampAnnotation])
	ref := api.ControllerOf(&j.ObjectMeta)
	require.NotNil(t, ref)
	assert.Equal(t, "CronJob", ref.Kind)

	cluster.Await(t, c, "pods", "its pod running", func(ps []*api.Pod) bool { return len(ps) == 1 && ps[0].Status.Phase == api.PodRunning })
	clock.Step(2 * time.Second)
	cj = cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "tick", "the Job seen complete", func(cj *api.CronJob) bool {
		return len(cj.Status.Active) == 0 && cj.Status.LastSuccessfulTime != nil
	})

	clock.Step(5 * time.Minute)
	second := jobNameAt("tick", time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC))
	cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", second, "the second Job running", func(j *api.Job) bool { return j.Status.Active == 1 })
	cluster.Await(t, c, "pods", "its pod running", func(ps []*api.Pod) bool {
		for _, p := range ps {
			if p.Labels["job-name"] == second && p.Status.Phase == api.PodRunning {
				return true
			}
		}
		return false
	})
	clock.Step(2 * time.Second)
	js := cluster.Await(t, c, "jobs.v1.batch", "only the latest Job kept", func(js []*api.Job) bool { return len(jobNames(js)) == 1 && jobNames(js)[0] == second })
	assert.NotNil(t, js[0].Status.Condition(api.JobComplete))
}

// TestCronJobConcurrencyPolicies runs an every-minute CronJob whose Jobs
// run for an hour: under Forbid the second minute starts nothing while
// the first Job runs; switched to Replace, the held-back run replaces
// it, and the next minute's run replaces that; suspended, later minutes
// start nothing.
func TestCronJobConcurrencyPolicies(t *testing.T) {
	c, clock := start(t)
	require.NoError(t, kit.Create(context.Background(), c.Client, cronJobs, cronJobBody("slow", "* * * * *", "1h", map[string]any{"concurrencyPolicy": "Forbid"}), nil))
	cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "slow", "the CronJob", func(*api.CronJob) bool { return true })
	clock.Step(30 * time.Second) // 00:01
	one := jobNameAt("slow", time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC))
	cj := cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "slow", "the first Job active", func(cj *api.CronJob) bool {
		return len(cj.Status.Active) == 1 && cj.Status.Active[0].Name == one
	})
	// A minute passes in no time: the controller must hold the status
	// that lists the first Job before it does, or it decides on a copy
	// from before that Job.
	seenByController(t, c, cj.ResourceVersion)
	clock.Step(time.Minute) // 00:02
	cluster.Await(t, c, "events", "JobAlreadyActive", func(es []*api.Event) bool {
		for _, e := range es {
			if e.Reason == "JobAlreadyActive" && e.InvolvedObject.Name == "slow" {
				return true
			}
		}
		return false
	})
	assert.Equal(t, []string{one}, jobNames(cluster.Await(t, c, "jobs.v1.batch", "jobs", func([]*api.Job) bool { return true })))

	tg := cronJobs
	tg.Name = "slow"
	require.NoError(t, kit.MergePatch(context.Background(), c.Client, tg, "", map[string]any{"spec": map[string]any{"concurrencyPolicy": "Replace"}}, nil))
	// The 00:02 run that Forbid held back is still due: it replaces the
	// first Job at once.
	two := jobNameAt("slow", time.Date(2026, 1, 1, 0, 2, 0, 0, time.UTC))
	cluster.Await(t, c, "jobs.v1.batch", "the first Job replaced by the 00:02 run", func(js []*api.Job) bool {
		n := jobNames(js)
		return len(n) == 1 && n[0] == two
	})
	cj = cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "slow", "the 00:02 Job active", func(cj *api.CronJob) bool {
		return len(cj.Status.Active) == 1 && cj.Status.Active[0].Name == two
	})
	seenByController(t, c, cj.ResourceVersion)
	clock.Step(time.Minute) // 00:03
	three := jobNameAt("slow", time.Date(2026, 1, 1, 0, 3, 0, 0, time.UTC))
	cluster.Await(t, c, "jobs.v1.batch", "the 00:02 Job replaced", func(js []*api.Job) bool {
		n := jobNames(js)
		return len(n) == 1 && n[0] == three
	})
	cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "slow", "the new Job active", func(cj *api.CronJob) bool {
		return len(cj.Status.Active) == 1 && cj.Status.Active[0].Name == three
	})

	var suspended api.CronJob
	require.NoError(t, kit.MergePatch(context.Background(), c.Client, tg, "", map[string]any{"spec": map[string]any{"suspend": true}}, &suspended))
	// The clock moves only once the controller's own cache holds the
	// suspended CronJob; the test's cache seeing it says nothing of that.
	seenByController(t, c, suspended.ResourceVersion)
	clock.Step(2 * time.Minute)
	cj = cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "slow", "the CronJob", func(*api.CronJob) bool { return true })
	assert.Equal(t, time.Date(2026, 1, 1, 0, 3, 0, 0, time.UTC), cj.Status.LastScheduleTime.Time, "a suspended CronJob ran")
	assert.Equal(t, []string{three}, jobNames(cluster.Await(t, c, "jobs.v1.batch", "jobs", func([]*api.Job) bool { return true })))
}

// TestCronJobTimeZoneAndStartingDeadline schedules 09:00 in Tokyo (00:00
// UTC): its Job's scheduled-timestamp annotation is in Tokyo time. Two
// CronJobs scheduled for 00:01 see the clock jump past it to the next
// midnight: the one without a deadline starts the missed run at once,
// the one with startingDeadlineSeconds 10 starts nothing.
func TestCronJobTimeZoneAndStartingDeadline(t *testing.T) {
	c, clock := start(t)
	ctx := context.Background()
	require.NoError(t, kit.Create(ctx, c.Client, cronJobs, cronJobBody("tokyo", "0 9 * * *", "", map[string]any{"timeZone": "Asia/Tokyo"}), nil))
	require.NoError(t, kit.Create(ctx, c.Client, cronJobs, cronJobBody("late", "1 0 * * *", "", map[string]any{"startingDeadlineSeconds": 10}), nil))
	require.NoError(t, kit.Create(ctx, c.Client, cronJobs, cronJobBody("eager", "1 0 * * *", "", nil), nil))
	cluster.Await(t, c, "cronjobs.v1.batch", "the CronJobs", func(cs []*api.CronJob) bool { return len(cs) == 3 })
	clock.Step(24*time.Hour - 30*time.Second) // the next midnight UTC
	name := jobNameAt("tokyo", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	j := cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", name, "the Tokyo Job", func(*api.Job) bool { return true })
	assert.Equal(t, "2026-01-02T09:00:00+09:00", j.Annotations[api.CronJobScheduledTimestampAnnotation])
	eager := jobNameAt("eager", time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC))
	cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", eager, "the missed run started", func(*api.Job) bool { return true })
	cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "eager", "its schedule time", func(cj *api.CronJob) bool { return cj.Status.LastScheduleTime != nil })
	late := cluster.AwaitNamed(t, c, "cronjobs.v1.batch", "default", "late", "the CronJob", func(*api.CronJob) bool { return true })
	assert.Nil(t, late.Status.LastScheduleTime, "a run started past its deadline")
	for _, n := range jobNames(cluster.Await(t, c, "jobs.v1.batch", "jobs", func([]*api.Job) bool { return true })) {
		assert.NotContains(t, n, "late-", "a Job started past its deadline")
	}
}
