package deployment

import (
	"cmp"
	"context"
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/rest"
)

// cleanup deletes the oldest old ReplicaSets beyond revisionHistoryLimit,
// lowest revision first, skipping any that still has pods or whose
// latest spec its controller has not yet seen.
func (c *Controller) cleanup(ctx context.Context, d *api.Deployment, oldRSs []*api.ReplicaSet) error {
	var alive []*api.ReplicaSet
	for _, rs := range oldRSs {
		if rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	diff := len(alive) - int(d.RevisionHistoryLimit())
	if diff <= 0 {
		return nil
	}
	slices.SortFunc(alive, func(a, b *api.ReplicaSet) int {
		if c := cmp.Compare(revision(a), revision(b)); c != 0 {
			return c
		}
		return byCreation(a, b)
	})
	for _, rs := range alive[:diff] {
		if rs.Status.Replicas != 0 || rs.SpecReplicas() != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		err := kit.Delete(ctx, c.env.Client, rsTarget(rs), rs.UID, nil)
		if err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	return nil
}
