package disruption

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// expectedPodCount returns how many pods the budget expects and how many
// of them it wants healthy, with the pods no controller owns. An integer
// minAvailable expects the pods it selects; a percentage, or
// maxUnavailable, expects the sum of the scales of the pods' controllers.
func (c *Controller) expectedPodCount(ctx context.Context, pdb *api.PodDisruptionBudget, pods []*api.Pod) (expected, desired int32, unmanaged []string, err error) {
	switch spec := pdb.Spec; {
	case spec.MaxUnavailable != nil:
		if expected, unmanaged, err = c.expectedScale(ctx, pods); err != nil {
			return 0, 0, nil, err
		}
		maxUnavailable, err := spec.MaxUnavailable.Scaled(expected, true)
		if err != nil {
			return 0, 0, nil, err
		}
		desired = max(expected-maxUnavailable, 0)
	case spec.MinAvailable != nil && !spec.MinAvailable.IsString:
		desired = spec.MinAvailable.Int
		expected = int32(len(pods))
	case spec.MinAvailable != nil:
		if expected, unmanaged, err = c.expectedScale(ctx, pods); err != nil {
			return 0, 0, nil, err
		}
		if desired, err = spec.MinAvailable.Scaled(expected, true); err != nil {
			return 0, 0, nil, err
		}
	}
	return expected, desired, unmanaged, nil
}

// expectedScale sums the scales of the controllers of pods, each counted
// once, and names the pods that have no controller. A pod whose
// controller cannot be found is an error.
func (c *Controller) expectedScale(ctx context.Context, pods []*api.Pod) (int32, []string, error) {
	scales := map[string]int32{}
	var unmanaged []string
	for _, p := range pods {
		ref := api.ControllerOf(&p.ObjectMeta)
		if ref == nil {
			unmanaged = append(unmanaged, p.Name)
			continue
		}
		if _, ok := scales[ref.UID]; ok {
			continue
		}
		uid, scale, found, err := c.controllerScale(ctx, ref, p.Namespace)
		if err != nil {
			return 0, nil, err
		}
		if !found {
			return 0, nil, errNoController(p.Name)
		}
		scales[uid] = scale
	}
	var sum int32
	for _, s := range scales {
		sum += s
	}
	return sum, unmanaged, nil
}

// controllerScale finds the controller ref names and its scale, trying
// in turn what the real controller tries: a ReplicationController; a
// Deployment through its ReplicaSet; a ReplicaSet no Deployment
// controls; a StatefulSet; anything else through its scale subresource.
// found is false when the controller is gone or is another object of the
// same name. A ReplicaSet whose Deployment is gone counts with its own
// replicas.
func (c *Controller) controllerScale(ctx context.Context, ref *meta.OwnerReference, ns string) (uid string, scale int32, found bool, err error) {
	group, _, ok := strings.Cut(ref.APIVersion, "/")
	if !ok {
		group = ""
	}
	switch {
	case ref.Kind == "ReplicationController" && group == "":
		rc, err := c.rcs.Lister().Namespace(ns).Get(ref.Name)
		if err != nil || rc.UID != ref.UID {
			return "", 0, false, nil
		}
		return rc.UID, rc.SpecReplicas(), true, nil
	case ref.Kind == "ReplicaSet" && (group == "apps" || group == "extensions"):
		rs, err := c.rss.Lister().Namespace(ns).Get(ref.Name)
		if err != nil || rs.UID != ref.UID {
			return "", 0, false, nil
		}
		owner := api.ControllerOf(&rs.ObjectMeta)
		if owner == nil || owner.Kind != "Deployment" {
			return rs.UID, rs.SpecReplicas(), true, nil
		}
		d, err := c.deps.Lister().Namespace(ns).Get(owner.Name)
		if err != nil || d.UID != owner.UID {
			// The real controller then reads the ReplicaSet's own
			// scale subresource: its replicas.
			return rs.UID, rs.SpecReplicas(), true, nil
		}
		return d.UID, d.SpecReplicas(), true, nil
	case ref.Kind == "StatefulSet" && group == "apps":
		s, err := c.sets.Lister().Namespace(ns).Get(ref.Name)
		if err != nil || s.UID != ref.UID {
			return "", 0, false, nil
		}
		return s.UID, s.SpecReplicas(), true, nil
	}
	return c.scaleSubresource(ctx, ref, ns)
}

// scaleSubresource reads the scale of ref's object through its scale
// subresource, found through discovery.
func (c *Controller) scaleSubresource(ctx context.Context, ref *meta.OwnerReference, ns string) (uid string, scale int32, found bool, err error) {
	res, err := c.resourceFor(ctx, ref.APIVersion, ref.Kind)
	if err != nil {
		return "", 0, false, err
	}
	var s struct {
		meta.ObjectMeta `json:"metadata"`
		Spec            struct {
			Replicas int32 `json:"replicas"`
		} `json:"spec"`
	}
	err = c.env.Client.Get().For(res).Namespace(ns).Name(ref.Name).SubResource("scale").Do(ctx).Into(&s)
	switch {
	case rest.IsNotFound(err):
		if !slices.Contains(res.Subresources, "scale") {
			return "", 0, false, fmt.Errorf("%s does not implement the scale subresource", res.GroupResource())
		}
		return "", 0, false, nil
	case err != nil:
		return "", 0, false, err
	case s.UID != ref.UID:
		return "", 0, false, nil
	}
	return s.UID, s.Spec.Replicas, true, nil
}

// resourceFor finds the resource of kind in apiVersion, discovering the
// server again when the last discovery does not know it.
func (c *Controller) resourceFor(ctx context.Context, apiVersion, kind string) (rest.APIResource, error) {
	c.mu.Lock()
	d := c.discovery
	c.mu.Unlock()
	if d != nil {
		if res, err := d.ForKind(apiVersion, kind); err == nil {
			return res, nil
		}
	}
	d, err := c.env.Client.Discover(ctx)
	if err != nil {
		return rest.APIResource{}, err
	}
	c.mu.Lock()
	c.discovery = d
	c.mu.Unlock()
	return d.ForKind(apiVersion, kind)
}
