package job_test

import (
	"context"
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

var jobs = kit.Target{Group: "batch", Version: "v1", Resource: "jobs", Namespace: "default"}

func jobBody(name, image string, spec map[string]any) map[string]any {
	spec["template"] = map[string]any{"spec": map[string]any{"restartPolicy": "Never",
		"containers": []map[string]any{{"name": "work", "image": image}}}}
	return map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": name, "namespace": "default"}, "spec": spec}
}

func start(t *testing.T) (*cluster.Cluster, *fakeapiserver.FakeClock) {
	clock := fakeapiserver.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := cluster.Start(t, cluster.Options{
		Server:      fakeapiserver.Options{Clock: clock},
		Controllers: []string{controllers.Job, controllers.Scheduler}, Nodes: 2,
	})
	return c, clock
}

func condition(j *api.Job, typ string) *api.JobCondition { return j.Status.Condition(typ) }

func jobPods(c *cluster.Cluster, ps []*api.Pod, phase string) int {
	n := 0
	for _, p := range ps {
		if p.Status.Phase == phase {
			n++
		}
	}
	return n
}

// TestJobRunsToCompletion runs a Job of 3 completions, 2 at a time: two
// pods run, succeed when the clock passes a second, a third runs, and
// the Job gets SuccessCriteriaMet then Complete (CompletionsReached) with
// its completion time.
func TestJobRunsToCompletion(t *testing.T) {
	c, clock := start(t)
	require.NoError(t, kit.Create(context.Background(), c.Client, jobs, jobBody("pi", "busybox", map[string]any{"completions": 3, "parallelism": 2}), nil))
	cluster.Await(t, c, "pods", "two running pods", func(ps []*api.Pod) bool { return len(ps) == 2 && jobPods(c, ps, api.PodRunning) == 2 })
	j := cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", "pi", "two active", func(j *api.Job) bool { return j.Status.Active == 2 })
	require.NotNil(t, j.Status.StartTime)

	clock.Step(time.Second)
	cluster.Await(t, c, "pods", "two done, one running", func(ps []*api.Pod) bool {
		return len(ps) == 3 && jobPods(c, ps, api.PodSucceeded) == 2 && jobPods(c, ps, api.PodRunning) == 1
	})
	clock.Step(time.Second)
	j = cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", "pi", "complete", func(j *api.Job) bool { return condition(j, api.JobComplete) != nil })
	assert.Equal(t, int32(3), j.Status.Succeeded)
	assert.Equal(t, int32(0), j.Status.Active)
	require.NotNil(t, j.Status.CompletionTime)
	met := condition(j, api.JobSuccessCriteriaMet)
	require.NotNil(t, met)
	assert.Equal(t, "CompletionsReached", met.Reason)
	done := condition(j, api.JobComplete)
	assert.Equal(t, "CompletionsReached", done.Reason)
	assert.Equal(t, "Reached expected number of succeeded pods", done.Message)
}

// TestJobFailsAfterBackoffLimit runs a Job whose pods fail, with
// backoffLimit 1: the second pod starts only after the 10 s back-off, and
// its failure fails the Job with BackoffLimitExceeded.
func TestJobFailsAfterBackoffLimit(t *testing.T) {
	c, clock := start(t)
	require.NoError(t, kit.Create(context.Background(), c.Client, jobs, jobBody("bad", "example/fail", map[string]any{"backoffLimit": 1}), nil))
	cluster.Await(t, c, "pods", "a running pod", func(ps []*api.Pod) bool { return len(ps) == 1 && jobPods(c, ps, api.PodRunning) == 1 })
	clock.Step(time.Second)
	cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", "bad", "one failure", func(j *api.Job) bool { return j.Status.Failed == 1 })
	clock.Step(5 * time.Second)
	ps := cluster.Await(t, c, "pods", "still one pod", func(ps []*api.Pod) bool { return len(ps) == 1 })
	assert.Equal(t, api.PodFailed, ps[0].Status.Phase, "no new pod inside the back-off")
	clock.Step(5 * time.Second)
	cluster.Await(t, c, "pods", "a second pod running", func(ps []*api.Pod) bool { return len(ps) == 2 && jobPods(c, ps, api.PodRunning) == 1 })
	clock.Step(time.Second)
	j := cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", "bad", "failed", func(j *api.Job) bool { return condition(j, api.JobFailed) != nil })
	assert.Equal(t, int32(2), j.Status.Failed)
	f := condition(j, api.JobFailed)
	assert.Equal(t, "BackoffLimitExceeded", f.Reason)
	assert.Equal(t, "Job has reached the specified backoff limit", f.Message)
	assert.NotNil(t, condition(j, api.JobFailureTarget))
}

// TestIndexedJobAndTTL runs an Indexed Job of 3: its pods carry indexes
// 0, 1 and 2, completedIndexes reads "0-2", and with
// ttlSecondsAfterFinished 60 the Job is deleted a minute after it
// completes.
func TestIndexedJobAndTTL(t *testing.T) {
	c, clock := start(t)
	body := jobBody("ix", "busybox", map[string]any{"completions": 3, "parallelism": 3, "completionMode": "Indexed", "ttlSecondsAfterFinished": 60})
	require.NoError(t, kit.Create(context.Background(), c.Client, jobs, body, nil))
	ps := cluster.Await(t, c, "pods", "three running pods", func(ps []*api.Pod) bool { return len(ps) == 3 && jobPods(c, ps, api.PodRunning) == 3 })
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.Annotations["batch.kubernetes.io/job-completion-index"]] = true
		assert.Regexp(t, `^ix-[0-2]-[a-z0-9]{5}$`, p.Name)
	}
	assert.Equal(t, map[string]bool{"0": true, "1": true, "2": true}, seen)
	clock.Step(time.Second)
	j := cluster.AwaitNamed(t, c, "jobs.v1.batch", "default", "ix", "complete", func(j *api.Job) bool { return condition(j, api.JobComplete) != nil })
	assert.Equal(t, "0-2", j.Status.CompletedIndexes)
	clock.Step(61 * time.Second)
	cluster.Await(t, c, "jobs.v1.batch", "the Job deleted by its TTL", func(js []*api.Job) bool { return len(js) == 0 })
}
