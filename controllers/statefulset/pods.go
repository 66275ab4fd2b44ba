package statefulset

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// podName matches the name of a StatefulSet's pod: "<set>-<ordinal>".
var podName = regexp.MustCompile(`^(.*)-([0-9]+)$`)

// ordinalOf returns the parent name and the ordinal of a pod named as a
// StatefulSet names its pods; ok is false for any other name.
func ordinalOf(p *api.Pod) (parent string, ordinal int, ok bool) {
	m := podName.FindStringSubmatch(p.Name)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, false
	}
	return m[1], n, true
}

// podTarget is where a pod lives on the server.
func podTarget(p *api.Pod) kit.Target {
	return kit.Target{Resource: "pods", Namespace: p.Namespace, Name: p.Name}
}

// newPod is the body of a pod a StatefulSet creates.
type newPod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            map[string]any `json:"spec"`
}

// claimTemplate is what is read of one of spec.volumeClaimTemplates.
type claimTemplate struct {
	Metadata meta.ObjectMeta `json:"metadata"`
	Spec     json.RawMessage `json:"spec,omitempty"`
}

// claimTemplates decodes the set's volume claim templates.
func claimTemplates(set *api.StatefulSet) ([]claimTemplate, error) {
	out := make([]claimTemplate, 0, len(set.Spec.VolumeClaimTemplates))
	for _, raw := range set.Spec.VolumeClaimTemplates {
		var t claimTemplate
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("volume claim template: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// claimName is the name of the claim a pod of set gets from template t.
func claimName(t claimTemplate, set *api.StatefulSet, ordinal int) string {
	return fmt.Sprintf("%s-%s-%d", t.Metadata.Name, set.Name, ordinal)
}

// buildPod returns the pod of set at ordinal, from template at revision:
// its stable name, hostname and subdomain, its identity and revision
// labels, and a volume for each claim template.
func buildPod(set *api.StatefulSet, template *api.PodTemplate, revision string, ordinal int) (*newPod, error) {
	name := fmt.Sprintf("%s-%d", set.Name, ordinal)
	spec, err := template.SpecMap()
	if err != nil {
		return nil, err
	}
	spec["hostname"] = name
	if set.Spec.ServiceName != "" {
		spec["subdomain"] = set.Spec.ServiceName
	}
	claims, err := claimTemplates(set)
	if err != nil {
		return nil, err
	}
	if len(claims) > 0 {
		volumes, _ := spec["volumes"].([]any)
		volumes = slices.DeleteFunc(slices.Clone(volumes), func(v any) bool {
			m, _ := v.(map[string]any)
			return slices.ContainsFunc(claims, func(t claimTemplate) bool { return m["name"] == t.Metadata.Name })
		})
		for _, t := range claims {
			volumes = append(volumes, map[string]any{"name": t.Metadata.Name,
				"persistentVolumeClaim": map[string]any{"claimName": claimName(t, set, ordinal)}})
		}
		spec["volumes"] = volumes
	}
	labels := maps.Clone(template.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[api.ControllerRevisionHashLabel] = revision
	labels[api.StatefulSetPodNameLabel] = name
	labels[api.PodIndexLabel] = strconv.Itoa(ordinal)
	return &newPod{
		TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: meta.ObjectMeta{
			Name: name, Namespace: set.Namespace, Labels: labels,
			Annotations:     maps.Clone(template.Metadata.Annotations),
			Finalizers:      slices.Clone(template.Metadata.Finalizers),
			OwnerReferences: []meta.OwnerReference{api.ControllerRef(&set.ObjectMeta, apiVersion, kind)},
		},
		Spec: spec,
	}, nil
}

// createPod creates the claims the pod at ordinal needs, then the pod,
// recording events as the real controller does.
func (c *Controller) createPod(ctx context.Context, set *api.StatefulSet, template *api.PodTemplate, revision string, ordinal int) error {
	body, err := buildPod(set, template, revision, ordinal)
	if err != nil {
		return err
	}
	if err := c.createClaims(ctx, set, body.Name, ordinal); err != nil {
		return err
	}
	err = kit.Create(ctx, c.env.Client, kit.Target{Resource: "pods", Namespace: set.Namespace}, body, nil)
	if err != nil {
		if !rest.IsAlreadyExists(err) {
			c.event(set, api.EventWarning, "FailedCreate", "create Pod %s in StatefulSet %s failed error: %v", body.Name, set.Name, err)
		}
		return err
	}
	c.event(set, api.EventNormal, "SuccessfulCreate", "create Pod %s in StatefulSet %s successful", body.Name, set.Name)
	return nil
}

// createClaims creates the PersistentVolumeClaims of the pod at ordinal
// that do not exist yet: named "<template>-<set>-<ordinal>", with the
// template's labels and the set's selector labels. They are not owned
// by the set: a claim outlives its pod and its set (the Retain policy).
func (c *Controller) createClaims(ctx context.Context, set *api.StatefulSet, pod string, ordinal int) error {
	claims, err := claimTemplates(set)
	if err != nil {
		return err
	}
	for _, t := range claims {
		name := claimName(t, set, ordinal)
		if _, err := c.claims.Lister().Namespace(set.Namespace).Get(name); err == nil {
			continue
		}
		labels := maps.Clone(t.Metadata.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		if set.Spec.Selector != nil {
			maps.Copy(labels, set.Spec.Selector.MatchLabels)
		}
		pvc := &api.PersistentVolumeClaim{
			TypeMeta:   meta.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: meta.ObjectMeta{Name: name, Namespace: set.Namespace, Labels: labels, Annotations: maps.Clone(t.Metadata.Annotations)},
			Spec:       t.Spec,
		}
		err := kit.Create(ctx, c.env.Client, kit.Target{Resource: "persistentvolumeclaims", Namespace: set.Namespace}, pvc, nil)
		switch {
		case err == nil:
			c.event(set, api.EventNormal, "SuccessfulCreate", "create Claim %s Pod %s in StatefulSet %s success", name, pod, set.Name)
		case rest.IsAlreadyExists(err):
		default:
			c.event(set, api.EventWarning, "FailedCreate", "create Claim %s for Pod %s in StatefulSet %s failed error: %v", name, pod, set.Name, err)
			return fmt.Errorf("create claim %s: %w", name, err)
		}
	}
	return nil
}

// deletePod deletes p and records the event; a pod already gone is no
// error.
func (c *Controller) deletePod(ctx context.Context, key string, set *api.StatefulSet, p *api.Pod) error {
	c.expect.Expect(key, 0, meta.Key(p))
	err := kit.Delete(ctx, c.env.Client, podTarget(p), p.UID, nil)
	if err != nil {
		c.expect.Deleted(key, meta.Key(p)) // no deletion of ours to wait for
	}
	if rest.IsNotFound(err) {
		return nil
	}
	if err != nil {
		c.event(set, api.EventWarning, "FailedDelete", "delete Pod %s in StatefulSet %s failed error: %v", p.Name, set.Name, err)
		return fmt.Errorf("delete pod %s: %w", p.Name, err)
	}
	c.event(set, api.EventNormal, "SuccessfulDelete", "delete Pod %s in StatefulSet %s successful", p.Name, set.Name)
	return nil
}
