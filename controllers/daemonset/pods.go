package daemonset

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// newPod is the body of a daemon pod.
type newPod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            map[string]any `json:"spec"`
}

// templateSpec returns the template's spec with the daemon tolerations
// added: what placement decisions read.
func templateSpec(ds *api.DaemonSet) (api.PodSpec, error) {
	spec, err := ds.Spec.Template.PodSpec()
	if err != nil {
		return spec, err
	}
	for _, t := range daemonTolerations {
		if !slices.ContainsFunc(spec.Tolerations, func(have api.Toleration) bool { return have.Key == t.Key && have.Effect == t.Effect }) {
			spec.Tolerations = append(spec.Tolerations, t)
		}
	}
	return spec, nil
}

// buildPod returns the daemon pod of ds for node: the template with the
// revision hash and template generation labels, the daemon tolerations,
// and a required node affinity on the node's name (the scheduler binds
// it there), as the real controller makes it.
func buildPod(ds *api.DaemonSet, hash, node string) (*newPod, error) {
	spec, err := ds.Spec.Template.SpecMap()
	if err != nil {
		return nil, err
	}
	typed, err := templateSpec(ds)
	if err != nil {
		return nil, err
	}
	spec["tolerations"] = typed.Tolerations
	onNode := api.NodeSelectorRequirement{Key: "metadata.name", Operator: "In", Values: []string{node}}
	terms := []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{onNode}}}
	if a := typed.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms = slices.Clone(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
		for i := range terms {
			terms[i].MatchFields = []api.NodeSelectorRequirement{onNode}
		}
	}
	affinity, _ := spec["affinity"].(map[string]any)
	affinity = maps.Clone(affinity)
	if affinity == nil {
		affinity = map[string]any{}
	}
	na, _ := affinity["nodeAffinity"].(map[string]any)
	na = maps.Clone(na)
	if na == nil {
		na = map[string]any{}
	}
	na["requiredDuringSchedulingIgnoredDuringExecution"] = map[string]any{"nodeSelectorTerms": terms}
	affinity["nodeAffinity"] = na
	spec["affinity"] = affinity

	labels := maps.Clone(ds.Spec.Template.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[api.ControllerRevisionHashLabel] = hash
	labels[api.PodTemplateGenerationLabel] = strconv.FormatInt(ds.Generation, 10)
	return &newPod{
		TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: meta.ObjectMeta{
			GenerateName: ds.Name + "-", Namespace: ds.Namespace, Labels: labels,
			Annotations:     maps.Clone(ds.Spec.Template.Metadata.Annotations),
			Finalizers:      slices.Clone(ds.Spec.Template.Metadata.Finalizers),
			OwnerReferences: []meta.OwnerReference{api.ControllerRef(&ds.ObjectMeta, apiVersion, kind)},
		},
		Spec: spec,
	}, nil
}

// createPods creates a daemon pod on each of nodes.
func (c *Controller) createPods(ctx context.Context, key string, ds *api.DaemonSet, hash string, nodes []string) error {
	c.expect.Expect(key, len(nodes))
	var first error
	for _, node := range nodes {
		body, err := buildPod(ds, hash, node)
		if err == nil {
			var created api.Pod
			err = kit.Create(ctx, c.env.Client, kit.Target{Resource: "pods", Namespace: ds.Namespace}, body, &created)
			if err == nil {
				c.event(ds, api.EventNormal, "SuccessfulCreate", "Created pod: %s", created.Name)
				continue
			}
			c.event(ds, api.EventWarning, "FailedCreate", "Error creating: %v", err)
		}
		c.expect.Created(key) // never to be seen
		if first == nil {
			first = err
		}
	}
	return first
}

// deletePods deletes pods; one already gone is no error.
func (c *Controller) deletePods(ctx context.Context, key string, ds *api.DaemonSet, pods []*api.Pod) error {
	keys := make([]string, len(pods))
	for i, p := range pods {
		keys[i] = meta.Key(p)
	}
	c.expect.Expect(key, 0, keys...)
	var first error
	for _, p := range pods {
		err := kit.Delete(ctx, c.env.Client, kit.Target{Resource: "pods", Namespace: p.Namespace, Name: p.Name}, p.UID, nil)
		if err != nil {
			c.expect.Deleted(key, meta.Key(p))
		}
		switch {
		case err == nil:
			c.event(ds, api.EventNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
		case rest.IsNotFound(err):
		default:
			c.event(ds, api.EventWarning, "FailedDelete", "Error deleting: %v", err)
			if first == nil {
				first = fmt.Errorf("delete pod %s: %w", p.Name, err)
			}
		}
	}
	return first
}
