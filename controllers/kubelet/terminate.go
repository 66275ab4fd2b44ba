package kubelet

import (
	"context"
	"reflect"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// terminate stops a deleted pod's containers and confirms the deletion:
// the containers stop StopAfter after the deletion began (killed at the
// end of the grace period if that comes first), the final status is
// written, then the pod is deleted with grace period 0.
func (k *Kubelet) terminate(ctx context.Context, key string, p *api.Pod, now time.Time) error {
	var grace time.Duration
	if p.DeletionGracePeriodSeconds != nil {
		grace = time.Duration(*p.DeletionGracePeriodSeconds) * time.Second
	}
	began := p.DeletionTimestamp.Add(-grace)
	b := behaviourOf(p, k.opts.Rules)
	stop, killed := b.StopAfter, false
	if stop > grace {
		stop, killed = grace, true
	}
	if at := began.Add(stop); now.Before(at) {
		k.loop.AddAt(key, at)
		return nil
	}
	if !api.IsPodTerminal(p) {
		st := stoppedStatus(p, began.Add(stop), killed)
		if !reflect.DeepEqual(st, p.Status) {
			err := kit.PutStatus(ctx, k.env.Client, kit.Target{Resource: "pods"}, "v1", "Pod", &p.ObjectMeta, st, nil)
			if err != nil && !rest.IsNotFound(err) {
				return err
			}
			for _, c := range p.Spec.Containers {
				k.logs.add(p, c.Name, "stopping: pod deleted")
			}
		}
	}
	zero := int64(0)
	err := kit.Delete(ctx, k.env.Client, kit.Target{Resource: "pods", Namespace: p.Namespace, Name: p.Name}, p.UID, &zero)
	if err != nil && !rest.IsNotFound(err) && !rest.IsConflict(err) {
		return err
	}
	return nil
}

// stoppedStatus is p's status once its containers stopped at at: exit
// code 0 for a container that stopped in time, 137 for one killed at the
// end of the grace period; the pod is Succeeded or Failed accordingly.
func stoppedStatus(p *api.Pod, at time.Time, killed bool) api.PodStatus {
	st := p.Status
	st.Conditions = append([]api.PodCondition(nil), p.Status.Conditions...)
	st.ContainerStatuses = append([]api.ContainerStatus(nil), p.Status.ContainerStatuses...)
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		if cs.State.Terminated != nil {
			continue
		}
		started := cs.StartTime()
		code, reason := int32(0), reasonCompleted
		if killed {
			code, reason = 137, reasonError
		}
		notStarted := false
		cs.State = api.ContainerState{Terminated: &api.StateTerminated{ExitCode: code, Reason: reason,
			StartedAt: meta.NewTime(started), FinishedAt: meta.NewTime(at), ContainerID: cs.ContainerID}}
		cs.Ready, cs.Started = false, &notStarted
	}
	st.Phase = phaseOf(st.ContainerStatuses)
	if st.Phase != api.PodSucceeded && st.Phase != api.PodFailed {
		st.Phase = api.PodFailed
	}
	setConditions(&st, at)
	return st
}
