package statefulset

import (
	"context"
	"fmt"
	"slices"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// The claim retention policy is carried out with owner references, as
// the real controller does, and the garbage collector does the
// deleting: a claim to delete with the set (whenDeleted: Delete) is
// owned by the set; one to delete when its pod is scaled away
// (whenScaled: Delete) is owned by that pod once its ordinal is past
// spec.replicas. Both references are controller references.

// wantedOwners says which of set and pod should own the claims of pod
// under the set's retention policy.
func wantedOwners(set *api.StatefulSet, pod *podAt) (bySet, byPod bool) {
	whenDeleted, whenScaled := set.ClaimRetention()
	scaledDown := pod.ordinal < set.StartOrdinal() || pod.ordinal >= set.StartOrdinal()+int(set.SpecReplicas())
	switch {
	case whenScaled == api.DeleteClaims && whenDeleted == api.DeleteClaims:
		return !scaledDown, scaledDown
	case whenScaled == api.DeleteClaims:
		return false, scaledDown
	case whenDeleted == api.DeleteClaims:
		return true, false
	}
	return false, false
}

// refersTo reports whether ref names an object of kind (in apiVersion)
// called name.
func refersTo(ref *meta.OwnerReference, apiVersion, kind, name string) bool {
	return ref.APIVersion == apiVersion && ref.Kind == kind && ref.Name == name
}

// ownersToSet returns the owner references claim should have for pod, and
// whether they differ from what it has. A claim with a reference to an
// earlier set or pod of the same name (another UID) is left alone, and
// so is one another controller owns, apart from dropping the set's and
// the pod's references to it (with the real ConflictingController
// event).
func (c *Controller) ownersToSet(set *api.StatefulSet, pod *podAt, claim *api.PersistentVolumeClaim) ([]meta.OwnerReference, bool) {
	refs := claim.OwnerReferences
	for i := range refs {
		if (refersTo(&refs[i], apiVersion, kind, set.Name) && refs[i].UID != set.UID) ||
			(refersTo(&refs[i], "v1", "Pod", pod.Name) && refs[i].UID != pod.UID) {
			return refs, false // stale: an earlier owner's, for the garbage collector
		}
	}
	ours := func(r *meta.OwnerReference) bool {
		return refersTo(r, apiVersion, kind, set.Name) || refersTo(r, "v1", "Pod", pod.Name)
	}
	whenDeleted, whenScaled := set.ClaimRetention()
	retainAll := whenDeleted != api.DeleteClaims && whenScaled != api.DeleteClaims
	other := !retainAll && slices.ContainsFunc(refs, func(r meta.OwnerReference) bool {
		return !ours(&r) && r.Controller != nil && *r.Controller
	})
	next := slices.DeleteFunc(slices.Clone(refs), func(r meta.OwnerReference) bool { return ours(&r) })
	if other {
		if len(next) != len(refs) {
			c.event(set, api.EventWarning, "ConflictingController",
				"PersistentVolumeClaim %s has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim", claim.Name)
		}
		return next, len(next) != len(refs)
	}
	bySet, byPod := wantedOwners(set, pod)
	if bySet {
		next = append(next, api.ControllerRef(&set.ObjectMeta, apiVersion, kind))
	}
	if byPod {
		next = append(next, api.ControllerRef(&pod.ObjectMeta, "v1", "Pod"))
	}
	return next, !sameRefs(refs, next)
}

// sameRefs reports whether a and b hold the same owners (by UID) with
// the same controller flags, in any order.
func sameRefs(a, b []meta.OwnerReference) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		if !slices.ContainsFunc(b, func(o meta.OwnerReference) bool {
			return o.UID == r.UID && (o.Controller != nil && *o.Controller) == (r.Controller != nil && *r.Controller)
		}) {
			return false
		}
	}
	return true
}

// applyRetention sets the owner references of pod's claims to what the
// set's retention policy asks, conditional on each claim's
// resourceVersion. A claim not made yet is left for a later reconcile.
func (c *Controller) applyRetention(ctx context.Context, set *api.StatefulSet, pod *podAt) error {
	if pod.UID == "" {
		return nil
	}
	templates, err := claimTemplates(set)
	if err != nil {
		return err
	}
	for _, t := range templates {
		name := claimName(t, set, pod.ordinal)
		claim, err := c.claims.Lister().Namespace(set.Namespace).Get(name)
		if err != nil {
			continue
		}
		refs, changed := c.ownersToSet(set, pod, claim)
		if !changed {
			continue
		}
		patch := map[string]any{"metadata": map[string]any{"resourceVersion": claim.ResourceVersion, "ownerReferences": refs}}
		err = kit.MergePatch(ctx, c.env.Client, kit.Target{Resource: "persistentvolumeclaims", Namespace: set.Namespace, Name: name}, "", patch, nil)
		if err != nil && !rest.IsNotFound(err) {
			return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", name, err)
		}
	}
	return nil
}
