package statefulset

import (
	"context"
	"fmt"
	"reflect"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/rest"
)

// setTarget is where StatefulSets live.
var setTarget = kit.Target{Group: "apps", Version: "v1", Resource: "statefulsets"}

// sync reconciles the StatefulSet key: claim its pods, settle its
// revisions, take one step towards spec (create, delete or replace
// pods), write its status, trim its history.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	set, err := c.sets.Lister().Namespace(ns).Get(name)
	if err != nil {
		c.expect.Forget(key) // deleted: its pods go with the garbage collector
		return nil
	}
	sel, err := set.Spec.Selector.Selector()
	if err != nil || set.Spec.Selector.Empty() {
		c.loop.Logger().Warn("invalid selector", "statefulset", key, "err", err)
		return nil
	}
	needsSync := c.expect.Satisfied(key)
	candidates := kit.OwnedOrOrphans(c.pods, set.Namespace, set.UID)
	owner := kit.Owner{Meta: &set.ObjectMeta, APIVersion: apiVersion, Kind: kind, Selector: sel}
	claimed, err := kit.Claim(ctx, c.env.Client, owner, podTarget, candidates)
	if err != nil {
		return fmt.Errorf("claim pods: %w", err)
	}
	var pods []*podAt
	for _, p := range claimed {
		if parent, ord, ok := ordinalOf(p); ok && parent == set.Name {
			pods = append(pods, &podAt{Pod: p, ordinal: ord})
		}
	}
	revs, err := c.syncRevisions(ctx, set)
	if err != nil {
		return err
	}
	var stepErr error
	if needsSync && set.DeletionTimestamp == nil {
		stepErr = c.step(ctx, key, set, revs, pods)
	}
	now := c.env.Clock.Now()
	st := computeStatus(set, revs, pods, now)
	if !reflect.DeepEqual(st, set.Status) {
		err := kit.PutStatus(ctx, c.env.Client, setTarget, apiVersion, kind, &set.ObjectMeta, st, nil)
		if err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	if stepErr != nil {
		return stepErr
	}
	if set.Spec.MinReadySeconds > 0 && st.ReadyReplicas != st.AvailableReplicas {
		c.loop.AddAfter(key, nextAvailable(pods, set.Spec.MinReadySeconds, now))
	}
	return c.truncateHistory(ctx, set, revs, pods)
}

// podAt is a pod of the set with its ordinal.
type podAt struct {
	*api.Pod
	ordinal int
}

// revision returns the name of the ControllerRevision p was made from.
func (p *podAt) revision() string { return p.Labels[api.ControllerRevisionHashLabel] }
