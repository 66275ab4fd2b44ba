package statefulset

import (
	"context"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

// revisions is what a reconcile knows of a set's history: the revision
// its current pods run, the one its template asks for, and every one it
// owns.
type revisions struct {
	current, update *api.ControllerRevision
	all             kit.Revisions
}

// syncRevisions settles the revision of set's template and finds the
// one its current pods run (status.currentRevision, or the update
// revision for a new set).
func (c *Controller) syncRevisions(ctx context.Context, set *api.StatefulSet) (revisions, error) {
	owner := kit.Owner{Meta: &set.ObjectMeta, APIVersion: apiVersion, Kind: kind}
	all, err := kit.SyncRevisions(ctx, c.env.Client, c.revs, owner, &set.Spec.Template, set.Status.CollisionCount)
	if err != nil {
		return revisions{}, err
	}
	r := revisions{update: all.Update, current: all.Named(set.Status.CurrentRevision), all: all}
	if r.current == nil {
		r.current = r.update
	}
	return r, nil
}

// truncateHistory deletes the oldest revisions beyond
// revisionHistoryLimit that no pod runs and that are neither the current
// nor the update revision.
func (c *Controller) truncateHistory(ctx context.Context, set *api.StatefulSet, r revisions, pods []*podAt) error {
	live := map[string]bool{r.current.Name: true, r.update.Name: true}
	for _, p := range pods {
		live[p.revision()] = true
	}
	keep := func(rev *api.ControllerRevision) bool { return live[rev.Name] }
	return kit.TruncateHistory(ctx, c.env.Client, r.all, keep, kit.HistoryLimit(set.Spec.RevisionHistoryLimit))
}
