package deployment

import (
	"context"
	"reflect"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
)

// calculateStatus is d's status from its ReplicaSets: the sums of their
// counts (updated ones are the new ReplicaSet's), and the Available
// condition: True (MinimumReplicasAvailable) when at least
// spec.replicas − maxUnavailable pods are available.
func (c *Controller) calculateStatus(all []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) api.DeploymentStatus {
	available := availableSum(all)
	st := api.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            actualSum(all),
		UpdatedReplicas:     actualSum([]*api.ReplicaSet{newRS}),
		ReadyReplicas:       readySum(all),
		AvailableReplicas:   available,
		UnavailableReplicas: max(specSum(all)-available, 0),
		TerminatingReplicas: terminatingSum(all),
		CollisionCount:      d.Status.CollisionCount,
		Conditions:          append([]api.DeploymentCondition(nil), d.Status.Conditions...),
	}
	if available >= d.SpecReplicas()-maxUnavailable(d) {
		st.SetCondition(c.condition(api.DeploymentAvailable, api.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability."))
	} else {
		st.SetCondition(c.condition(api.DeploymentAvailable, api.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."))
	}
	return st
}

// syncDeploymentStatus writes the calculated status if it differs.
func (c *Controller) syncDeploymentStatus(ctx context.Context, all []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) error {
	st := c.calculateStatus(all, newRS, d)
	if reflect.DeepEqual(d.Status, st) {
		return nil
	}
	d.Status = st
	return c.writeStatus(ctx, d)
}

// condition returns a Deployment condition dated now.
func (c *Controller) condition(typ string, status api.ConditionStatus, reason, msg string) api.DeploymentCondition {
	now := meta.NewTime(c.env.Clock.Now())
	return api.DeploymentCondition{Type: typ, Status: status, LastUpdateTime: now, LastTransitionTime: now, Reason: reason, Message: msg}
}

// writeStatus writes d.Status through the status subresource, conditional
// on the version read, and keeps d's resourceVersion current.
func (c *Controller) writeStatus(ctx context.Context, d *api.Deployment) error {
	var out api.Deployment
	t := kit.Target{Group: "apps", Version: "v1", Resource: "deployments"}
	if err := kit.PutStatus(ctx, c.env.Client, t, "apps/v1", "Deployment", &d.ObjectMeta, d.Status, &out); err != nil {
		return err
	}
	d.ResourceVersion = out.ResourceVersion
	return nil
}
