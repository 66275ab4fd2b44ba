package job

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/controllers/replicaset"
	"github.com/kubecache/kubecache/rest"
)

// The labels and annotation that mark a Job's pods.
const (
	indexAnnotation = "batch.kubernetes.io/job-completion-index"
	jobNameLabel    = "batch.kubernetes.io/job-name"
	controllerUID   = "batch.kubernetes.io/controller-uid"
)

// Pod back-off after failures: 10 s, doubling, at most 6 minutes.
const (
	backOffBase = 10 * time.Second
	backOffMax  = 6 * time.Minute
)

// manage starts pods up to what j may run now, or deletes extras.
func (c *Controller) manage(ctx context.Context, key string, j *api.Job, pc counts, now time.Time) error {
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		return c.deletePods(ctx, j, pc.active)
	}
	want := parallelism(j)
	if comp := j.Spec.Completions; comp != nil {
		want = min(want, *comp-int32(len(pc.succeeded)))
	} else if len(pc.succeeded) > 0 {
		want = 0
	}
	active := int32(len(pc.active))
	if active > want {
		return c.deletePods(ctx, j, pc.active[:active-want])
	}
	if active == want {
		return nil
	}
	if at := backOffUntil(pc.failed); now.Before(at) {
		c.loop.AddAt(key, at)
		return nil
	}
	n := int(want - active)
	var indexes []int
	if indexed(j) {
		indexes = pendingIndexes(j, pc, n)
		n = len(indexes)
	}
	c.expect.Expect(key, n)
	var errs []error
	for i := range n {
		idx := -1
		if indexes != nil {
			idx = indexes[i]
		}
		if err := c.createPod(ctx, j, idx); err != nil {
			c.expect.Created(key)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// backOffUntil is when the next pod may start after failures: the
// back-off of the failure count after the last failure.
func backOffUntil(failed []*api.Pod) time.Time {
	if len(failed) == 0 {
		return time.Time{}
	}
	d := backOffBase
	for range len(failed) - 1 {
		if d *= 2; d >= backOffMax {
			d = backOffMax
			break
		}
	}
	var last time.Time
	for _, p := range failed {
		for _, cs := range p.Status.ContainerStatuses {
			if t := cs.State.Terminated; t != nil && t.FinishedAt.After(last) {
				last = t.FinishedAt.Time
			}
		}
	}
	return last.Add(d)
}

// pendingIndexes returns up to n indexes that have neither succeeded nor
// an active pod, lowest first.
func pendingIndexes(j *api.Job, pc counts, n int) []int {
	taken := map[int]bool{}
	for _, p := range append(append([]*api.Pod(nil), pc.active...), pc.terminating...) {
		if i, ok := indexOf(p); ok {
			taken[i] = true
		}
	}
	for _, i := range succeededIndexes(pc.succeeded) {
		taken[i] = true
	}
	var out []int
	for i := 0; i < int(*j.Spec.Completions) && len(out) < n; i++ {
		if !taken[i] {
			out = append(out, i)
		}
	}
	return out
}

// succeededIndexes returns the distinct indexes of succeeded pods,
// sorted.
func succeededIndexes(pods []*api.Pod) []int {
	seen := map[int]bool{}
	for _, p := range pods {
		if i, ok := indexOf(p); ok {
			seen[i] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// formatIndexes writes sorted indexes as the API's ranges: "0-2,4".
func formatIndexes(ix []int) string {
	var parts []string
	for i := 0; i < len(ix); {
		j := i
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(ix[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ix[i], ix[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// createPod creates one pod of j (with its completion index when idx is
// not -1) and records the event.
func (c *Controller) createPod(ctx context.Context, j *api.Job, idx int) error {
	t := j.Spec.Template
	t.Metadata.Labels = maps.Clone(t.Metadata.Labels)
	if t.Metadata.Labels == nil {
		t.Metadata.Labels = map[string]string{}
	}
	t.Metadata.Labels[jobNameLabel] = j.Name
	t.Metadata.Labels[controllerUID] = j.UID
	prefix := j.Name + "-"
	if idx >= 0 {
		t.Metadata.Annotations = maps.Clone(t.Metadata.Annotations)
		if t.Metadata.Annotations == nil {
			t.Metadata.Annotations = map[string]string{}
		}
		t.Metadata.Annotations[indexAnnotation] = strconv.Itoa(idx)
		t.Metadata.Labels[indexAnnotation] = strconv.Itoa(idx)
		prefix = fmt.Sprintf("%s-%d-", j.Name, idx)
	}
	body := replicaset.PodFromTemplate(&t, j.Namespace, prefix, api.ControllerRef(&j.ObjectMeta, "batch/v1", "Job"))
	var created api.Pod
	err := kit.Create(ctx, c.env.Client, kit.Target{Resource: "pods", Namespace: j.Namespace}, body, &created)
	if err != nil {
		c.event(j, api.EventWarning, "FailedCreate", "Error creating: %v", err)
		return err
	}
	c.event(j, api.EventNormal, "SuccessfulCreate", "Created pod: %s", created.Name)
	return nil
}

// deletePods deletes pods of j and records the events.
func (c *Controller) deletePods(ctx context.Context, j *api.Job, pods []*api.Pod) error {
	var errs []error
	for _, p := range pods {
		err := kit.Delete(ctx, c.env.Client, kit.Target{Resource: "pods", Namespace: p.Namespace, Name: p.Name}, p.UID, nil)
		if err != nil && !rest.IsNotFound(err) {
			errs = append(errs, err)
			continue
		}
		c.event(j, api.EventNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
	}
	return errors.Join(errs...)
}
