package kit

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// Revisions is the history of a StatefulSet or a DaemonSet: the
// ControllerRevision of its present template (Update) and every one it
// owns, oldest first.
type Revisions struct {
	Update *api.ControllerRevision
	All    []*api.ControllerRevision
}

// Named returns the revision called name, or nil.
func (r Revisions) Named(name string) *api.ControllerRevision {
	for _, rev := range r.All {
		if rev.Name == name {
			return rev
		}
	}
	return nil
}

// revisionTarget is where a ControllerRevision lives.
func revisionTarget(namespace, name string) Target {
	return Target{Group: "apps", Version: "v1", Resource: "controllerrevisions", Namespace: namespace, Name: name}
}

// SyncRevisions finds, among the ControllerRevisions of inf that o
// controls, the one holding template; it creates it when there is none
// (named "<owner>-<hash>", numbered one past the newest) and renumbers
// it when it is an older one (a rollback), as the real controllers'
// history does.
func SyncRevisions(ctx context.Context, c *rest.Client, inf *informer.Informer[*api.ControllerRevision], o Owner, template *api.PodTemplate, collisionCount *int32) (Revisions, error) {
	var r Revisions
	r.All = slices.Clone(OwnedBy(inf, o.Meta.UID))
	slices.SortFunc(r.All, func(a, b *api.ControllerRevision) int { return cmp.Compare(a.Revision, b.Revision) })
	var newest int64
	if n := len(r.All); n > 0 {
		newest = r.All[n-1].Revision
	}
	for _, rev := range r.All {
		t, err := rev.Template()
		if err == nil && api.EqualIgnoringHash(&t, template) {
			r.Update = rev
		}
	}
	switch {
	case r.Update == nil:
		created, err := createRevision(ctx, c, o, template, collisionCount, newest+1)
		if err != nil {
			return r, err
		}
		r.Update = created
		r.All = append(r.All, created)
	case r.Update.Revision < newest:
		patch := map[string]any{"revision": newest + 1}
		var out api.ControllerRevision
		if err := MergePatch(ctx, c, revisionTarget(o.Meta.Namespace, r.Update.Name), "", patch, &out); err != nil {
			return r, fmt.Errorf("renumber revision %s: %w", r.Update.Name, err)
		}
		r.Update = &out
	}
	return r, nil
}

// createRevision creates the ControllerRevision of template for o.
func createRevision(ctx context.Context, c *rest.Client, o Owner, template *api.PodTemplate, collisionCount *int32, number int64) (*api.ControllerRevision, error) {
	data, err := api.RevisionData(template)
	if err != nil {
		return nil, err
	}
	hash := api.TemplateHash(template, collisionCount)
	labels := maps.Clone(template.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[api.ControllerRevisionHashKey] = hash
	rev := &api.ControllerRevision{
		TypeMeta: meta.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
		ObjectMeta: meta.ObjectMeta{
			Name: o.Meta.Name + "-" + hash, Namespace: o.Meta.Namespace, Labels: labels,
			OwnerReferences: []meta.OwnerReference{api.ControllerRef(o.Meta, o.APIVersion, o.Kind)},
		},
		Data:     data,
		Revision: number,
	}
	var out api.ControllerRevision
	if err := Create(ctx, c, revisionTarget(o.Meta.Namespace, ""), rev, &out); err != nil {
		return nil, fmt.Errorf("create revision %s: %w", rev.Name, err)
	}
	return &out, nil
}

// TruncateHistory deletes the oldest revisions beyond limit among those
// live does not keep (the revisions pods still run, the current and the
// update revision).
func TruncateHistory(ctx context.Context, c *rest.Client, r Revisions, live func(*api.ControllerRevision) bool, limit int) error {
	var history []*api.ControllerRevision
	for _, rev := range r.All {
		if !live(rev) {
			history = append(history, rev)
		}
	}
	for _, rev := range history[:max(0, len(history)-limit)] {
		err := Delete(ctx, c, revisionTarget(rev.Namespace, rev.Name), rev.UID, nil)
		if err != nil && !rest.IsNotFound(err) {
			return fmt.Errorf("delete revision %s: %w", rev.Name, err)
		}
	}
	return nil
}

// HistoryLimit returns a revisionHistoryLimit: 10 when unset.
func HistoryLimit(limit *int32) int {
	if limit == nil {
		return 10
	}
	return int(*limit)
}
