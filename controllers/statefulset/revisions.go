package statefulset

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// revisions is what a reconcile knows of a set's history: the revision
// its current pods run, the one its template asks for, and every one it
// owns.
type revisions struct {
	current, update *api.ControllerRevision
	all             []*api.ControllerRevision
}

// revisionTarget is where the ControllerRevisions of namespace live.
func revisionTarget(namespace, name string) kit.Target {
	return kit.Target{Group: "apps", Version: "v1", Resource: "controllerrevisions", Namespace: namespace, Name: name}
}

// syncRevisions finds the ControllerRevision of set's template, creating
// it (numbered one past the newest) or renumbering an older equal one
// (a rollback), and the revision its current pods run.
func (c *Controller) syncRevisions(ctx context.Context, set *api.StatefulSet) (revisions, error) {
	var r revisions
	r.all = slices.Clone(kit.OwnedBy(c.revs, set.UID))
	slices.SortFunc(r.all, func(a, b *api.ControllerRevision) int { return cmp.Compare(a.Revision, b.Revision) })
	var newest int64
	if n := len(r.all); n > 0 {
		newest = r.all[n-1].Revision
	}
	for _, rev := range r.all {
		t, err := rev.Template()
		if err == nil && api.EqualIgnoringHash(&t, &set.Spec.Template) {
			r.update = rev
		}
	}
	switch {
	case r.update == nil:
		created, err := c.createRevision(ctx, set, newest+1)
		if err != nil {
			return r, err
		}
		r.update = created
		r.all = append(r.all, created)
	case r.update.Revision < newest:
		patch := map[string]any{"revision": newest + 1}
		var out api.ControllerRevision
		if err := kit.MergePatch(ctx, c.env.Client, revisionTarget(set.Namespace, r.update.Name), "", patch, &out); err != nil {
			return r, fmt.Errorf("renumber revision %s: %w", r.update.Name, err)
		}
		r.update = &out
	}
	for _, rev := range r.all {
		if rev.Name == set.Status.CurrentRevision {
			r.current = rev
		}
	}
	if r.current == nil {
		r.current = r.update
	}
	return r, nil
}

// createRevision creates the ControllerRevision of set's template,
// named after its hash.
func (c *Controller) createRevision(ctx context.Context, set *api.StatefulSet, number int64) (*api.ControllerRevision, error) {
	data, err := api.RevisionData(&set.Spec.Template)
	if err != nil {
		return nil, err
	}
	hash := api.TemplateHash(&set.Spec.Template, set.Status.CollisionCount)
	labels := maps.Clone(set.Spec.Template.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[api.ControllerRevisionHashKey] = hash
	rev := &api.ControllerRevision{
		TypeMeta: meta.TypeMeta{APIVersion: apiVersion, Kind: "ControllerRevision"},
		ObjectMeta: meta.ObjectMeta{
			Name: set.Name + "-" + hash, Namespace: set.Namespace, Labels: labels,
			OwnerReferences: []meta.OwnerReference{api.ControllerRef(&set.ObjectMeta, apiVersion, kind)},
		},
		Data:     data,
		Revision: number,
	}
	var out api.ControllerRevision
	if err := kit.Create(ctx, c.env.Client, revisionTarget(set.Namespace, ""), rev, &out); err != nil {
		return nil, fmt.Errorf("create revision %s: %w", rev.Name, err)
	}
	return &out, nil
}

// truncateHistory deletes the oldest revisions beyond
// revisionHistoryLimit (default 10) that no pod runs and that are
// neither the current nor the update revision.
func (c *Controller) truncateHistory(ctx context.Context, set *api.StatefulSet, r revisions, pods []*api.Pod) error {
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	live := map[string]bool{r.current.Name: true, r.update.Name: true}
	for _, p := range pods {
		live[p.Labels[api.ControllerRevisionHashLabel]] = true
	}
	var history []*api.ControllerRevision
	for _, rev := range r.all {
		if !live[rev.Name] {
			history = append(history, rev)
		}
	}
	for _, rev := range history[:max(0, len(history)-limit)] {
		err := kit.Delete(ctx, c.env.Client, revisionTarget(rev.Namespace, rev.Name), rev.UID, nil)
		if err != nil && !rest.IsNotFound(err) {
			return fmt.Errorf("delete revision %s: %w", rev.Name, err)
		}
	}
	return nil
}
