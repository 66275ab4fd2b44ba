package kubelet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/meta"
)

// The waiting reasons a kubelet reports.
const (
	reasonCreating  = "ContainerCreating"
	reasonBackOff   = "CrashLoopBackOff"
	reasonCompleted = "Completed"
	reasonError     = "Error"
)

// Back-off of a crashing container: 10s after the first exit, doubling,
// at most five minutes, as the kubelet does.
const (
	backOffBase = 10 * time.Second
	backOffMax  = 5 * time.Minute
)

// backOff returns the delay before a container that has restarted
// restarts times so far starts again.
func backOff(restarts int32) time.Duration {
	d := backOffBase
	for range restarts {
		d *= 2
		if d >= backOffMax {
			return backOffMax
		}
	}
	return d
}

// addresses are the IPs a node gives a pod.
type addresses struct{ hostIP, podIP string }

// advance returns the status p has at now given its Behaviour, and the
// time at which it next changes by itself (zero: it does not). It makes
// at most one step per container, so a clock moved far ahead is caught
// up by calling it again at once (next is then not after now).
func advance(p *api.Pod, b Behaviour, now time.Time, ips addresses) (api.PodStatus, time.Time) {
	st := p.Status
	st.Conditions = append([]api.PodCondition(nil), p.Status.Conditions...)
	var next time.Time
	wake := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if st.StartTime == nil {
		t := meta.NewTime(now)
		st.StartTime = &t
		st.HostIP, st.HostIPs = ips.hostIP, []api.PodIP{{IP: ips.hostIP}}
		st.PodIP, st.PodIPs = ips.podIP, []api.PodIP{{IP: ips.podIP}}
		st.QOSClass = qosClass(p)
	}
	statuses := make([]api.ContainerStatus, len(p.Spec.Containers))
	for i, c := range p.Spec.Containers {
		cs, ok := containerStatus(p.Status.ContainerStatuses, c.Name)
		if !ok {
			cs = api.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: imageID(c.Image),
				State: api.ContainerState{Waiting: &api.StateWaiting{Reason: reasonCreating}}}
		}
		statuses[i] = advanceContainer(p, cs, b, st.StartTime.Time, now, wake)
	}
	st.ContainerStatuses = statuses
	st.Phase = phaseOf(statuses)
	setConditions(&st, now)
	return st, next
}

// advanceContainer makes one step of one container's lifecycle.
func advanceContainer(p *api.Pod, cs api.ContainerStatus, b Behaviour, podStart, now time.Time, wake func(time.Time)) api.ContainerStatus {
	switch w := cs.State.Waiting; {
	case w != nil && w.Reason == reasonCreating:
		at := podStart.Add(b.StartAfter)
		if now.Before(at) {
			wake(at)
			return cs
		}
		return start(p, cs, now, b, wake)
	case w != nil && cs.LastState.Terminated != nil:
		at := cs.LastState.Terminated.FinishedAt.Add(backOff(cs.RestartCount))
		if now.Before(at) {
			wake(at)
			return cs
		}
		cs.RestartCount++
		return start(p, cs, now, b, wake)
	case cs.State.Running != nil:
		return running(p, cs, b, now, wake)
	}
	return cs
}

// start runs a container from now.
func start(p *api.Pod, cs api.ContainerStatus, now time.Time, b Behaviour, wake func(time.Time)) api.ContainerStatus {
	started := true
	cs.State = api.ContainerState{Running: &api.StateRunning{StartedAt: meta.NewTime(now)}}
	cs.Started = &started
	cs.ContainerID = containerID(p, cs.Name, cs.RestartCount)
	return running(p, cs, b, now, wake)
}

// running decides whether a running container exits or turns ready.
func running(p *api.Pod, cs api.ContainerStatus, b Behaviour, now time.Time, wake func(time.Time)) api.ContainerStatus {
	startedAt := cs.State.Running.StartedAt.Time
	if b.Exits {
		exitAt := startedAt.Add(b.ExitAfter)
		if now.Before(exitAt) {
			wake(exitAt)
		} else {
			return exited(p, cs, b.ExitCode, startedAt, exitAt, wake)
		}
	}
	readyAt := startedAt.Add(b.ReadyAfter)
	switch {
	case b.NeverReady:
		cs.Ready = false
	case now.Before(readyAt):
		cs.Ready = false
		wake(readyAt)
	default:
		cs.Ready = true
	}
	return cs
}

// exited records a container's exit and whether it restarts.
func exited(p *api.Pod, cs api.ContainerStatus, code int32, startedAt, at time.Time, wake func(time.Time)) api.ContainerStatus {
	reason := reasonCompleted
	if code != 0 {
		reason = reasonError
	}
	term := &api.StateTerminated{ExitCode: code, Reason: reason, StartedAt: meta.NewTime(startedAt), FinishedAt: meta.NewTime(at), ContainerID: cs.ContainerID}
	notStarted := false
	cs.Ready, cs.Started = false, &notStarted
	restart := p.Spec.RestartPolicy == "" || p.Spec.RestartPolicy == api.RestartAlways || (p.Spec.RestartPolicy == api.RestartOnFailure && code != 0)
	if !restart {
		cs.State = api.ContainerState{Terminated: term}
		return cs
	}
	delay := backOff(cs.RestartCount)
	cs.LastState = api.ContainerState{Terminated: term}
	cs.State = api.ContainerState{Waiting: &api.StateWaiting{Reason: reasonBackOff,
		Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", delay, cs.Name, p.Name, p.Namespace, p.UID)}}
	wake(at.Add(delay))
	return cs
}

// phaseOf is the pod phase its containers make: Succeeded or Failed once
// all have terminated for good, Running once any has started, Pending
// before.
func phaseOf(cs []api.ContainerStatus) string {
	if len(cs) == 0 {
		return api.PodPending
	}
	done, failed, started := 0, false, false
	for _, c := range cs {
		if t := c.State.Terminated; t != nil {
			done++
			failed = failed || t.ExitCode != 0
		}
		if c.State.Running != nil || c.LastState.Terminated != nil || c.State.Terminated != nil {
			started = true
		}
	}
	switch {
	case done == len(cs) && failed:
		return api.PodFailed
	case done == len(cs):
		return api.PodSucceeded
	case started:
		return api.PodRunning
	}
	return api.PodPending
}

// setConditions writes the kubelet's conditions for st's containers.
func setConditions(st *api.PodStatus, now time.Time) {
	at := meta.NewTime(now)
	terminal := st.Phase == api.PodSucceeded || st.Phase == api.PodFailed
	var unready []string
	for _, c := range st.ContainerStatuses {
		if !c.Ready {
			unready = append(unready, c.Name)
		}
	}
	ready := api.PodCondition{Status: api.ConditionTrue, LastTransitionTime: at}
	switch {
	case terminal:
		ready = api.PodCondition{Status: api.ConditionFalse, Reason: api.ReasonPodCompleted, LastTransitionTime: at}
	case len(unready) > 0:
		ready = api.PodCondition{Status: api.ConditionFalse, Reason: api.ReasonContainersNotReady, LastTransitionTime: at,
			Message: "containers with unready status: [" + strings.Join(unready, " ") + "]"}
	}
	sandbox := api.ConditionTrue
	if terminal {
		sandbox = api.ConditionFalse
	}
	for _, c := range []api.PodCondition{
		{Type: api.PodReadyToStartContainers, Status: sandbox, LastTransitionTime: at},
		{Type: api.PodInitialized, Status: api.ConditionTrue, LastTransitionTime: at},
		withType(ready, api.PodReady),
		withType(ready, api.PodContainersReady),
		{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: at},
	} {
		if c.Type == api.PodScheduled {
			if old := st.Condition(api.PodScheduled); old != nil && old.Status == api.ConditionTrue {
				continue
			}
		}
		st.SetCondition(c)
	}
}

func withType(c api.PodCondition, t string) api.PodCondition {
	c.Type = t
	return c
}

func containerStatus(cs []api.ContainerStatus, name string) (api.ContainerStatus, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c, true
		}
	}
	return api.ContainerStatus{}, false
}

// qosClass is the pod's quality of service class: BestEffort without
// requests or limits, Guaranteed when every container's limits equal its
// requests for cpu and memory, Burstable otherwise.
func qosClass(p *api.Pod) string {
	any, guaranteed := false, true
	for _, c := range p.Spec.Containers {
		r, l := c.Resources.Requests, c.Resources.Limits
		if len(r) > 0 || len(l) > 0 {
			any = true
		}
		for _, name := range []string{"cpu", "memory"} {
			lv, ok := l[name]
			if !ok {
				guaranteed = false
				continue
			}
			if rv, ok := r[name]; ok && rv != lv {
				guaranteed = false
			}
		}
	}
	switch {
	case !any:
		return "BestEffort"
	case guaranteed:
		return "Guaranteed"
	}
	return "Burstable"
}

func containerID(p *api.Pod, name string, restarts int32) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", p.UID, name, restarts))
	return "containerd://" + hex.EncodeToString(h[:])
}

func imageID(image string) string {
	h := sha256.Sum256([]byte(image))
	return image + "@sha256:" + hex.EncodeToString(h[:])
}
