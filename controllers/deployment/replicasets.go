package deployment

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// The annotations a Deployment writes on its ReplicaSets (and the first
// on itself).
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
)

// maxRevisionHistoryChars bounds the revision-history annotation.
const maxRevisionHistoryChars = 2000

// notCopied are the Deployment annotations that are not copied to its
// ReplicaSets.
var notCopied = map[string]bool{
	"kubectl.kubernetes.io/last-applied-configuration": true,
	RevisionAnnotation:                  true,
	RevisionHistoryAnnotation:           true,
	DesiredReplicasAnnotation:           true,
	MaxReplicasAnnotation:               true,
	"deprecated.deployment.rollback.to": true,
}

// deepCopy returns a copy of d the reconcile may change.
func deepCopy(d *api.Deployment) *api.Deployment {
	out, err := meta.Clone(d)
	if err != nil {
		panic(fmt.Sprintf("clone deployment: %v", err)) // a decoded object always re-encodes
	}
	return out
}

func deepCopyRS(rs *api.ReplicaSet) *api.ReplicaSet {
	out, err := meta.Clone(rs)
	if err != nil {
		panic(fmt.Sprintf("clone replicaset: %v", err))
	}
	return out
}

// revision returns a ReplicaSet's revision, 0 when it has none.
func revision(rs *api.ReplicaSet) int64 {
	v, _ := strconv.ParseInt(rs.Annotations[RevisionAnnotation], 10, 64)
	return v
}

// byCreation orders ReplicaSets oldest first, by name when created in the
// same second.
func byCreation(a, b *api.ReplicaSet) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// findNewReplicaSet returns the oldest ReplicaSet whose template is d's
// (ignoring the hash label), and the others.
func findNewReplicaSet(d *api.Deployment, rsList []*api.ReplicaSet) (*api.ReplicaSet, []*api.ReplicaSet) {
	sorted := slices.Clone(rsList)
	slices.SortFunc(sorted, byCreation)
	var newRS *api.ReplicaSet
	var old []*api.ReplicaSet
	for _, rs := range sorted {
		if newRS == nil && api.EqualIgnoringHash(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
			continue
		}
		old = append(old, rs)
	}
	return newRS, old
}

// replicaSetsAndSyncRevision returns the new ReplicaSet (created when
// create is set and there is none) and the old ones, and brings the
// revision annotations of the new one and of d up to date.
func (c *Controller) replicaSetsAndSyncRevision(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet, create bool) (*api.ReplicaSet, []*api.ReplicaSet, error) {
	existing, old := findNewReplicaSet(d, rsList)
	var maxOld int64
	for _, rs := range old {
		maxOld = max(maxOld, revision(rs))
	}
	newRevision := strconv.FormatInt(maxOld+1, 10)
	if existing != nil {
		rs, err := c.syncExistingNewRS(ctx, d, existing, newRevision)
		return rs, old, err
	}
	if !create {
		return nil, old, nil
	}
	rs, err := c.createNewRS(ctx, d, old, newRevision)
	return rs, old, err
}

// syncExistingNewRS brings the new ReplicaSet's annotations and
// minReadySeconds up to date, then d's revision and its Progressing
// condition.
func (c *Controller) syncExistingNewRS(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet, newRevision string) (*api.ReplicaSet, error) {
	annotations := maps.Clone(rs.Annotations)
	changed := setNewRSAnnotations(d, &annotations, newRevision, true)
	if changed || rs.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		patch := map[string]any{
			"metadata": map[string]any{"resourceVersion": rs.ResourceVersion, "annotations": annotations},
			"spec":     map[string]any{"minReadySeconds": d.Spec.MinReadySeconds},
		}
		var out api.ReplicaSet
		if err := kit.MergePatch(ctx, c.env.Client, rsTarget(rs), "", patch, &out); err != nil {
			return nil, err
		}
		return &out, nil
	}
	if err := c.setDeploymentRevision(ctx, d, rs.Annotations[RevisionAnnotation]); err != nil {
		return nil, err
	}
	if _, ok := d.ProgressDeadline(); ok && d.Status.Condition(api.DeploymentProgressing) == nil {
		d.Status.SetCondition(c.condition(api.DeploymentProgressing, api.ConditionTrue, "FoundNewReplicaSet", fmt.Sprintf("Found new replica set %q", rs.Name)))
		if err := c.writeStatus(ctx, d); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// createNewRS creates the ReplicaSet for d's template, named after its
// hash, at the size the strategy allows now.
func (c *Controller) createNewRS(ctx context.Context, d *api.Deployment, old []*api.ReplicaSet, newRevision string) (*api.ReplicaSet, error) {
	hash := api.TemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	template := d.Spec.Template
	template.Metadata.Labels = withLabel(d.Spec.Template.Metadata.Labels, api.PodTemplateHashLabel, hash)
	zero := int32(0)
	rs := &api.ReplicaSet{
		TypeMeta: meta.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: meta.ObjectMeta{
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			Labels:          template.Metadata.Labels,
			OwnerReferences: []meta.OwnerReference{api.ControllerRef(&d.ObjectMeta, "apps/v1", "Deployment")},
		},
		Spec: api.ReplicaSetSpec{
			Replicas:        &zero,
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        d.Spec.Selector.WithLabel(api.PodTemplateHashLabel, hash),
			Template:        template,
		},
	}
	replicas, err := newRSReplicas(d, withNew(old, rs), rs)
	if err != nil {
		return nil, err
	}
	rs.Spec.Replicas = &replicas
	setNewRSAnnotations(d, &rs.Annotations, newRevision, false)

	var created api.ReplicaSet
	err = kit.Create(ctx, c.env.Client, rsTarget(rs), rs, &created)
	alreadyExists := false
	switch {
	case rest.IsAlreadyExists(err):
		return c.nameTaken(ctx, d, rs)
	case err != nil && rest.IsForbidden(err) && strings.Contains(err.Error(), "being terminated"):
		return nil, err // the namespace is going away
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
		if _, ok := d.ProgressDeadline(); ok {
			d.Status.SetCondition(c.condition(api.DeploymentProgressing, api.ConditionFalse, "ReplicaSetCreateError", msg))
			_ = c.writeStatus(ctx, d)
		}
		c.event(d, api.EventWarning, "ReplicaSetCreateError", "%s", msg)
		return nil, err
	}
	if !alreadyExists && replicas > 0 {
		c.event(d, api.EventNormal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, replicas)
	}
	if err := c.setDeploymentRevision(ctx, d, newRevision); err != nil {
		return nil, err
	}
	if _, ok := d.ProgressDeadline(); ok {
		d.Status.SetCondition(c.condition(api.DeploymentProgressing, api.ConditionTrue, "NewReplicaSetCreated", fmt.Sprintf("Created new replica set %q", created.Name)))
		if err := c.writeStatus(ctx, d); err != nil {
			return nil, err
		}
	}
	return &created, nil
}

// nameTaken handles a new ReplicaSet whose name exists: it is ours if
// it runs d's template (the cache was behind); otherwise the hash
// collided, and d's collisionCount goes up so the next try hashes to
// another name.
func (c *Controller) nameTaken(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet) (*api.ReplicaSet, error) {
	var cur api.ReplicaSet
	err := c.env.Client.Get().Group("apps").Version("v1").Namespace(rs.Namespace).Resource("replicasets").Name(rs.Name).Do(ctx).Into(&cur)
	if err != nil {
		return nil, err
	}
	if ref := api.ControllerOf(&cur.ObjectMeta); ref != nil && ref.UID == d.UID && api.EqualIgnoringHash(&d.Spec.Template, &cur.Spec.Template) {
		return &cur, nil
	}
	n := int32(1)
	if d.Status.CollisionCount != nil {
		n = *d.Status.CollisionCount + 1
	}
	d.Status.CollisionCount = &n
	if err := c.writeStatus(ctx, d); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("replica set %s exists with another template: collisionCount is now %d", rs.Name, n)
}

// setNewRSAnnotations writes into *annotations what the new ReplicaSet
// carries: d's own annotations (bar notCopied), the revision when it is
// lower than newRevision (keeping the old number in the revision
// history: a rollback), and, for a ReplicaSet about to be created, the
// desired and max replicas. It reports whether anything changed.
func setNewRSAnnotations(d *api.Deployment, annotations *map[string]string, newRevision string, exists bool) bool {
	if *annotations == nil {
		*annotations = map[string]string{}
	}
	a := *annotations
	changed := false
	for k, v := range d.Annotations {
		if notCopied[k] || a[k] == v {
			continue
		}
		a[k], changed = v, true
	}
	oldRevision, had := a[RevisionAnnotation]
	oldN, _ := strconv.ParseInt(oldRevision, 10, 64)
	newN, _ := strconv.ParseInt(newRevision, 10, 64)
	if oldN < newN {
		a[RevisionAnnotation], changed = newRevision, true
		if had {
			a[RevisionHistoryAnnotation] = appendHistory(a[RevisionHistoryAnnotation], oldRevision)
		}
	}
	if !exists {
		surge, _ := limits(d)
		changed = setReplicasAnnotations(a, d.SpecReplicas(), d.SpecReplicas()+surge) || changed
	}
	return changed
}

// appendHistory adds revision to a comma-separated history, dropping the
// oldest entries beyond maxRevisionHistoryChars.
func appendHistory(history, revision string) string {
	if history == "" {
		return revision
	}
	old := strings.Split(history, ",")
	total := len(history) + len(revision) + 1
	start := 0
	for total > maxRevisionHistoryChars && start < len(old) {
		total -= len(old[start]) + 1
		start++
	}
	return strings.Join(append(old[start:], revision), ",")
}

// setReplicasAnnotations records the Deployment's size and maximum size
// on a ReplicaSet: what proportional scaling reads back later.
func setReplicasAnnotations(a map[string]string, desired, maxReplicas int32) bool {
	d, m := strconv.Itoa(int(desired)), strconv.Itoa(int(maxReplicas))
	if a[DesiredReplicasAnnotation] == d && a[MaxReplicasAnnotation] == m {
		return false
	}
	a[DesiredReplicasAnnotation], a[MaxReplicasAnnotation] = d, m
	return true
}

// setDeploymentRevision writes revision into d's revision annotation.
func (c *Controller) setDeploymentRevision(ctx context.Context, d *api.Deployment, revision string) error {
	if d.Annotations[RevisionAnnotation] == revision {
		return nil
	}
	patch := map[string]any{"metadata": map[string]any{"annotations": map[string]string{RevisionAnnotation: revision}}}
	var out api.Deployment
	t := kit.Target{Group: "apps", Version: "v1", Resource: "deployments", Namespace: d.Namespace, Name: d.Name}
	if err := kit.MergePatch(ctx, c.env.Client, t, "", patch, &out); err != nil {
		return err
	}
	d.Annotations, d.ResourceVersion = out.Annotations, out.ResourceVersion
	return nil
}

func withLabel(labels map[string]string, k, v string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}
