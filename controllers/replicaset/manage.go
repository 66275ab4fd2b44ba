package replicaset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// manage creates or deletes pods so that rs has spec.replicas active
// ones, at most BurstReplicas per call. It records what it asks for in
// the expectations first, so the next reconcile waits until the cache
// has seen it.
func (c *Controller) manage(ctx context.Context, key string, rs *api.ReplicaSet, active []*api.Pod) error {
	diff := len(active) - int(rs.SpecReplicas())
	switch {
	case diff < 0:
		n := min(-diff, c.opts.BurstReplicas)
		c.expect.Expect(key, n)
		created, err := slowStart(n, func() error { return c.createPod(ctx, rs) })
		// Creations never sent will never be seen.
		for range n - created {
			c.expect.Created(key)
		}
		return err
	case diff > 0:
		n := min(diff, c.opts.BurstReplicas)
		victims := podsToDelete(active, n)
		keys := make([]string, len(victims))
		for i, p := range victims {
			keys[i] = meta.Key(p)
		}
		c.expect.Expect(key, 0, keys...)
		return c.deletePods(ctx, key, rs, victims)
	}
	return nil
}

// slowStart calls fn n times, in batches of 1, 2, 4… run in parallel,
// and stops after the first batch with a failure: a pod template the
// server refuses costs one request, not hundreds. It returns how many
// calls succeeded and the first error.
func slowStart(n int, fn func() error) (int, error) {
	done := 0
	for batch := min(n, 1); done < n; batch = min(2*batch, n-done) {
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for range batch {
			wg.Go(func() { errs <- fn() })
		}
		wg.Wait()
		close(errs)
		var first error
		for err := range errs {
			if err == nil {
				done++
			} else if first == nil {
				first = err
			}
		}
		if first != nil {
			return done, first
		}
	}
	return done, nil
}

// newPod is the body of a pod created from a template.
type newPod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            json.RawMessage `json:"spec"`
}

// PodFromTemplate returns the pod a controller creates from template:
// the template's labels, annotations and finalizers, a name generated
// from prefix, the controller reference, and the template's spec as it
// is.
func PodFromTemplate(template *api.PodTemplate, namespace, prefix string, ref meta.OwnerReference) any {
	return &newPod{
		TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: meta.ObjectMeta{
			GenerateName:    prefix,
			Namespace:       namespace,
			Labels:          maps.Clone(template.Metadata.Labels),
			Annotations:     maps.Clone(template.Metadata.Annotations),
			Finalizers:      slices.Clone(template.Metadata.Finalizers),
			OwnerReferences: []meta.OwnerReference{ref},
		},
		Spec: template.Spec,
	}
}

// createPod creates one pod of rs and records the event.
func (c *Controller) createPod(ctx context.Context, rs *api.ReplicaSet) error {
	body := PodFromTemplate(&rs.Spec.Template, rs.Namespace, rs.Name+"-", api.ControllerRef(&rs.ObjectMeta, "apps/v1", "ReplicaSet"))
	var created api.Pod
	err := kit.Create(ctx, c.env.Client, kit.Target{Resource: "pods", Namespace: rs.Namespace}, body, &created)
	ref := api.RefTo(&rs.ObjectMeta, "apps/v1", "ReplicaSet")
	if err != nil {
		c.env.Events.Eventf(kit.Source{Component: Name}, ref, api.EventWarning, "FailedCreate", "Error creating: %v", err)
		return err
	}
	c.env.Events.Eventf(kit.Source{Component: Name}, ref, api.EventNormal, "SuccessfulCreate", "Created pod: %s", created.Name)
	return nil
}

// deletePods deletes victims in parallel and records the events; a pod
// already gone is no error.
func (c *Controller) deletePods(ctx context.Context, key string, rs *api.ReplicaSet, victims []*api.Pod) error {
	errs := make([]error, len(victims))
	var wg sync.WaitGroup
	ref := api.RefTo(&rs.ObjectMeta, "apps/v1", "ReplicaSet")
	for i, p := range victims {
		wg.Go(func() {
			err := kit.Delete(ctx, c.env.Client, podTarget(p), p.UID, nil)
			if err != nil && !rest.IsNotFound(err) {
				c.expect.Deleted(key, meta.Key(p)) // it will not be seen
				c.env.Events.Eventf(kit.Source{Component: Name}, ref, api.EventWarning, "FailedDelete", "Error deleting: %v", err)
				errs[i] = fmt.Errorf("delete pod %s: %w", p.Name, err)
				return
			}
			c.env.Events.Eventf(kit.Source{Component: Name}, ref, api.EventNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
