package kit

import (
	"context"
	"fmt"
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// Owner is the controller claiming objects: its metadata, its kind and
// the selector its objects must match.
type Owner struct {
	Meta       *meta.ObjectMeta
	APIVersion string
	Kind       string
	Selector   selector.Labels
}

// Claim returns the candidates that belong to owner, as the real
// controllers' ref managers decide: an object it controls and that still
// matches its selector is kept; one it controls that no longer matches
// is released (its owner reference removed); an orphan that matches is
// adopted (the owner's controller reference added), unless the owner or
// the orphan is being deleted. Objects controlled by someone else are
// never touched. target says where each object lives on the server.
func Claim[T meta.Object](ctx context.Context, c *rest.Client, o Owner, target func(T) Target, candidates []T) ([]T, error) {
	var out []T
	var errs []error
	for _, obj := range candidates {
		m := obj.GetObjectMeta()
		ref := api.ControllerOf(m)
		matches := o.Selector.Matches(m.Labels)
		switch {
		case ref != nil && ref.UID != o.Meta.UID:
			continue
		case ref != nil && matches:
			out = append(out, obj)
		case ref != nil:
			if o.Meta.DeletionTimestamp != nil {
				continue
			}
			refs := slices.DeleteFunc(slices.Clone(m.OwnerReferences), func(r meta.OwnerReference) bool { return r.UID == o.Meta.UID })
			if err := patchOwners(ctx, c, target(obj), m, refs); err != nil && !rest.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("release %s: %w", m.Name, err))
			}
		case matches && o.Meta.DeletionTimestamp == nil && m.DeletionTimestamp == nil:
			refs := append(slices.Clone(m.OwnerReferences), api.ControllerRef(o.Meta, o.APIVersion, o.Kind))
			err := patchOwners(ctx, c, target(obj), m, refs)
			switch {
			case err == nil:
				out = append(out, obj)
			case !rest.IsNotFound(err):
				errs = append(errs, fmt.Errorf("adopt %s: %w", m.Name, err))
			}
		}
	}
	if len(errs) > 0 {
		return out, errs[0]
	}
	return out, nil
}

// patchOwners replaces the owner references of the object m describes,
// refused if the object changed since it was read.
func patchOwners(ctx context.Context, c *rest.Client, t Target, m *meta.ObjectMeta, refs []meta.OwnerReference) error {
	var owners any = refs
	if len(refs) == 0 {
		owners = nil
	}
	patch := map[string]any{"metadata": map[string]any{"resourceVersion": m.ResourceVersion, "ownerReferences": owners}}
	return MergePatch(ctx, c, t, "", patch, nil)
}
