package deployment

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
)

// The reasons of the Progressing condition.
const (
	reasonNewRSAvailable = "NewReplicaSetAvailable"
	reasonRSUpdated      = "ReplicaSetUpdated"
	reasonTimedOut       = "ProgressDeadlineExceeded"
	reasonPaused         = "DeploymentPaused"
	reasonResumed        = "DeploymentResumed"
)

// complete reports whether st shows d fully rolled out: every replica
// updated and available, and the latest spec observed.
func complete(d *api.Deployment, st api.DeploymentStatus) bool {
	r := d.SpecReplicas()
	return st.UpdatedReplicas == r && st.Replicas == r && st.AvailableReplicas == r && st.ObservedGeneration >= d.Generation
}

// progressing reports whether st moved the rollout forward since d's
// status: more updated, ready or available pods, or fewer old ones.
func progressing(d *api.Deployment, st api.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// timedOut reports whether the rollout made no progress for
// progressDeadlineSeconds since the Progressing condition last changed.
func timedOut(d *api.Deployment, now time.Time) bool {
	secs, ok := d.ProgressDeadline()
	c := d.Status.Condition(api.DeploymentProgressing)
	if !ok || c == nil || c.Reason == reasonNewRSAvailable {
		return false
	}
	if c.Reason == reasonTimedOut {
		return true
	}
	return c.LastUpdateTime.Add(time.Duration(secs) * time.Second).Before(now)
}

// syncRolloutStatus writes the status with the Progressing condition
// that tells where the rollout is, and, while it is under way, asks to
// be reconciled again when its deadline would pass.
func (c *Controller) syncRolloutStatus(ctx context.Context, all []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) error {
	st := c.calculateStatus(all, newRS, d)
	secs, hasDeadline := d.ProgressDeadline()
	if !hasDeadline {
		st.RemoveCondition(api.DeploymentProgressing)
	}
	cur := d.Status.Condition(api.DeploymentProgressing)
	done := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == reasonNewRSAvailable
	if hasDeadline && !done {
		subject := fmt.Sprintf("Deployment %q", d.Name)
		if newRS != nil {
			subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
		}
		switch {
		case complete(d, st):
			st.SetCondition(c.condition(api.DeploymentProgressing, api.ConditionTrue, reasonNewRSAvailable, subject+" has successfully progressed."))
		case progressing(d, st):
			cond := c.condition(api.DeploymentProgressing, api.ConditionTrue, reasonRSUpdated, subject+" is progressing.")
			// Progress refreshes lastUpdateTime even when the reason
			// stays: that is what the deadline counts from.
			if cur != nil && cur.Status == api.ConditionTrue {
				cond.LastTransitionTime = cur.LastTransitionTime
			}
			st.RemoveCondition(api.DeploymentProgressing)
			st.Conditions = append(st.Conditions, cond)
		case timedOut(d, c.env.Clock.Now()):
			st.SetCondition(c.condition(api.DeploymentProgressing, api.ConditionFalse, reasonTimedOut, subject+" has timed out progressing."))
		}
	}
	if f := replicaFailure(all, newRS); f != nil {
		st.SetCondition(*f)
	} else {
		st.RemoveCondition(api.DeploymentReplicaFailure)
	}
	if reflect.DeepEqual(d.Status, st) {
		c.requeueStuck(d, st, secs, hasDeadline)
		return nil
	}
	d.Status = st
	return c.writeStatus(ctx, d)
}

// requeueStuck asks for a reconcile when the progress deadline of a
// rollout under way passes, so that ProgressDeadlineExceeded is reported
// even if nothing else happens.
func (c *Controller) requeueStuck(d *api.Deployment, st api.DeploymentStatus, secs int32, hasDeadline bool) {
	cur := st.Condition(api.DeploymentProgressing)
	if !hasDeadline || cur == nil || complete(d, st) || cur.Reason == reasonTimedOut {
		return
	}
	deadline := cur.LastUpdateTime.Add(time.Duration(secs) * time.Second)
	if deadline.Sub(c.env.Clock.Now()) < time.Second {
		c.loop.AddAfter(d.Namespace+"/"+d.Name, time.Second)
		return
	}
	c.loop.AddAt(d.Namespace+"/"+d.Name, deadline.Add(time.Second))
}

// replicaFailure is the new ReplicaSet's ReplicaFailure condition as a
// Deployment condition, or nil.
func replicaFailure(all []*api.ReplicaSet, newRS *api.ReplicaSet) *api.DeploymentCondition {
	for _, rs := range append([]*api.ReplicaSet{newRS}, all...) {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == api.ReplicaSetReplicaFailure {
				return &api.DeploymentCondition{Type: api.DeploymentReplicaFailure, Status: c.Status, Reason: c.Reason, Message: c.Message,
					LastUpdateTime: c.LastTransitionTime, LastTransitionTime: c.LastTransitionTime}
			}
		}
		if rs == newRS {
			return nil // only the new ReplicaSet's failures count
		}
	}
	return nil
}

// checkPausedConditions reports a pause or a resume in the Progressing
// condition (Unknown, DeploymentPaused or DeploymentResumed), unless the
// rollout already timed out.
func (c *Controller) checkPausedConditions(ctx context.Context, d *api.Deployment) error {
	if _, ok := d.ProgressDeadline(); !ok {
		return nil
	}
	cur := d.Status.Condition(api.DeploymentProgressing)
	if cur != nil && cur.Reason == reasonTimedOut {
		return nil
	}
	pausedShown := cur != nil && cur.Reason == reasonPaused
	switch {
	case d.Spec.Paused && !pausedShown:
		d.Status.SetCondition(c.condition(api.DeploymentProgressing, api.ConditionUnknown, reasonPaused, "Deployment is paused"))
	case !d.Spec.Paused && pausedShown:
		d.Status.SetCondition(c.condition(api.DeploymentProgressing, api.ConditionUnknown, reasonResumed, "Deployment is resumed"))
	default:
		return nil
	}
	return c.writeStatus(ctx, d)
}
