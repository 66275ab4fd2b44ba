package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/meta"
)

func testPod(image, restart string) *api.Pod {
	return &api.Pod{
		ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "ns", UID: "u1"},
		Spec:       api.PodSpec{NodeName: "node-1", RestartPolicy: restart, Containers: []api.Container{{Name: "c", Image: image}}},
	}
}

// run advances p from t0 until nothing changes by itself or until end,
// and returns every status it went through.
func run(t *testing.T, p *api.Pod, t0, end time.Time) []api.PodStatus {
	t.Helper()
	var seen []api.PodStatus
	now := t0
	for range 100 {
		st, next := advance(p, behaviourOf(p, DefaultRules), now, addresses{hostIP: "10.0.0.2", podIP: "10.64.1.2"})
		seen = append(seen, st)
		p.Status = st
		if next.IsZero() || next.After(end) {
			return seen
		}
		if next.After(now) {
			now = next
		}
	}
	t.Fatal("lifecycle did not settle")
	return nil
}

func TestLifecycleRunsAndTurnsReady(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seen := run(t, testPod("nginx", api.RestartAlways), t0, t0.Add(time.Hour))
	last := seen[len(seen)-1]
	assert.Equal(t, api.PodRunning, last.Phase)
	require.Len(t, last.ContainerStatuses, 1)
	assert.True(t, last.ContainerStatuses[0].Ready)
	assert.NotNil(t, last.ContainerStatuses[0].State.Running)
	assert.Equal(t, api.ConditionTrue, last.Condition(api.PodReady).Status)
	assert.Equal(t, "BestEffort", last.QOSClass)
	assert.Equal(t, "10.64.1.2", last.PodIP)
}

func TestLifecycleCrashLoopBacksOff(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seen := run(t, testPod("example/crash", api.RestartAlways), t0, t0.Add(time.Minute))
	last := seen[len(seen)-1]
	cs := last.ContainerStatuses[0]
	require.NotNil(t, cs.State.Waiting, "%+v", cs)
	assert.Equal(t, "CrashLoopBackOff", cs.State.Waiting.Reason)
	assert.Contains(t, cs.State.Waiting.Message, "restarting failed container=c pod=p_ns(u1)")
	require.NotNil(t, cs.LastState.Terminated)
	assert.Equal(t, int32(1), cs.LastState.Terminated.ExitCode)
	assert.Equal(t, "Error", cs.LastState.Terminated.Reason)
	// Exits at 2s, restarts after 10s, 20s: by one minute, 2 restarts.
	assert.Equal(t, int32(2), cs.RestartCount)
	assert.Equal(t, api.PodRunning, last.Phase)
	assert.Equal(t, api.ConditionFalse, last.Condition(api.PodReady).Status)
}

func TestLifecycleJobPodSucceeds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seen := run(t, testPod("busybox", api.RestartNever), t0, t0.Add(time.Hour))
	last := seen[len(seen)-1]
	assert.Equal(t, api.PodSucceeded, last.Phase)
	assert.Equal(t, "Completed", last.ContainerStatuses[0].State.Terminated.Reason)
	assert.Equal(t, "PodCompleted", last.Condition(api.PodReady).Reason)
}

func TestBackOffDoublesToFiveMinutes(t *testing.T) {
	assert.Equal(t, 10*time.Second, backOff(0))
	assert.Equal(t, 20*time.Second, backOff(1))
	assert.Equal(t, 160*time.Second, backOff(4))
	assert.Equal(t, 5*time.Minute, backOff(5))
	assert.Equal(t, 5*time.Minute, backOff(50))
}

func TestGlobMatch(t *testing.T) {
	assert.True(t, globMatch("*crash*", "example.com/team/crash:1"))
	assert.True(t, globMatch("busybox:*", "busybox:1.36"))
	assert.False(t, globMatch("busybox:*", "nginx"))
	assert.True(t, globMatch("nginx", "nginx"))
	assert.False(t, globMatch("*crash*", "nginx"))
}
