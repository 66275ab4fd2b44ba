package statefulset

import (
	"context"
	"slices"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
)

// step takes the set one step towards its spec, in the real
// controller's order: replace pods that finished, create the missing
// ones from the lowest ordinal, delete the condemned ones (ordinals past
// spec.replicas) from the highest, then replace pods of an old revision
// from the highest ordinal down to the partition. Under OrderedReady
// each step waits for every lower pod to be running and ready, and one
// pod changes at a time; under Parallel creations and deletions go out
// together, and only the rolling update waits.
func (c *Controller) step(ctx context.Context, key string, set *api.StatefulSet, revs revisions, pods []*podAt) error {
	start, replicas := set.StartOrdinal(), int(set.SpecReplicas())
	slots := make([]*podAt, replicas)
	var condemned []*podAt
	for _, p := range pods {
		if i := p.ordinal - start; i >= 0 && i < replicas {
			slots[i] = p
		} else {
			condemned = append(condemned, p)
		}
	}
	// Claims first get the owners the retention policy asks for, so
	// that a condemned member's claims go with it.
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			if err := c.applyRetention(ctx, set, p); err != nil {
				return err
			}
		}
	}
	ordered := set.Spec.PodManagementPolicy != api.ParallelPodManagement
	now := c.env.Clock.Now()
	healthy := func(p *podAt) bool {
		return p != nil && p.DeletionTimestamp == nil && p.Status.Phase == api.PodRunning && api.IsPodAvailable(p.Pod, set.Spec.MinReadySeconds, now)
	}

	var missing []int
scan:
	for i, p := range slots {
		switch {
		case p == nil:
			missing = append(missing, start+i)
		case api.IsPodTerminal(p.Pod) && p.DeletionTimestamp == nil:
			// A failed (or finished) member is deleted and made again.
			return c.deletePod(ctx, key, set, p.Pod)
		}
		if ordered && !healthy(p) {
			break scan
		}
	}
	if len(missing) > 0 {
		if ordered {
			missing = missing[:1]
		}
		return c.createPods(ctx, key, set, revs, missing)
	}
	allHealthy := !slices.ContainsFunc(slots, func(p *podAt) bool { return !healthy(p) })
	if ordered && !allHealthy {
		return nil
	}

	slices.SortFunc(condemned, func(a, b *podAt) int { return b.ordinal - a.ordinal })
	deleting := false
	for _, p := range condemned {
		if p.DeletionTimestamp != nil {
			deleting = true
			if ordered {
				return nil
			}
			continue
		}
		if err := c.deletePod(ctx, key, set, p.Pod); err != nil || ordered {
			return err
		}
		deleting = true
	}
	if deleting || set.Spec.UpdateStrategy.Type == api.OnDeleteStrategy || !allHealthy {
		return nil
	}
	// The rolling update: one pod of an old revision at a time, highest
	// ordinal first, never below the partition.
	for i := replicas - 1; i >= set.Partition()-start && i >= 0; i-- {
		if p := slots[i]; p.revision() != revs.update.Name {
			return c.deletePod(ctx, key, set, p.Pod)
		}
	}
	return nil
}

// createPods creates the pods at ordinals, each from the revision the
// real controller gives it: the current one below the partition (or,
// without a rollingUpdate block, below status.currentReplicas), the
// update revision otherwise.
func (c *Controller) createPods(ctx context.Context, key string, set *api.StatefulSet, revs revisions, ordinals []int) error {
	current, err := revs.current.Template()
	if err != nil {
		return err
	}
	c.expect.Expect(key, len(ordinals))
	var first error
	for _, ord := range ordinals {
		template, revision := &set.Spec.Template, revs.update.Name
		if set.Spec.UpdateStrategy.Type != api.OnDeleteStrategy && ord < keepCurrentBelow(set) {
			template, revision = &current, revs.current.Name
		}
		if err := c.createPod(ctx, set, template, revision, ord); err != nil {
			c.expect.Created(key) // never to be seen
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// keepCurrentBelow is the ordinal below which a recreated pod keeps the
// current revision.
func keepCurrentBelow(set *api.StatefulSet) int {
	if set.Spec.UpdateStrategy.RollingUpdate == nil {
		return set.StartOrdinal() + int(set.Status.CurrentReplicas)
	}
	return set.StartOrdinal() + set.Partition()
}

// nextAvailable returns how long until the first ready pod that is not
// yet available turns available.
func nextAvailable(pods []*podAt, minReadySeconds int32, now time.Time) time.Duration {
	next := time.Duration(minReadySeconds) * time.Second
	for _, p := range pods {
		c := p.Status.Condition(api.PodReady)
		if c == nil || c.Status != api.ConditionTrue {
			continue
		}
		if d := c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second).Sub(now); d > 0 && d < next {
			next = d
		}
	}
	return next
}
