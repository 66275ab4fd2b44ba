package nodelifecycle

import (
	"context"
	"errors"
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/rest"
)

// defaultTolerationSeconds is what the API server's DefaultTolerationSeconds
// admission gives every pod for the not-ready and unreachable taints.
const defaultTolerationSeconds = 300

// evict deletes the pods of node whose NoExecute taints they do not
// tolerate, or whose tolerationSeconds have run out, and comes back when
// the next toleration ends.
func (c *Controller) evict(ctx context.Context, node *api.Node, now time.Time) error {
	var noExecute []api.Taint
	for _, t := range node.Spec.Taints {
		if t.Effect == api.TaintNoExecute {
			noExecute = append(noExecute, t)
		}
	}
	if len(noExecute) == 0 {
		return nil
	}
	pods, _ := c.pods.Indexer().ByIndex(podsByNode, node.Name)
	var next time.Time
	var errs []error
	for _, p := range pods {
		if p.DeletionTimestamp != nil || api.IsPodTerminal(p) {
			continue
		}
		at, ok := evictionTime(p, noExecute)
		if !ok {
			continue
		}
		if now.Before(at) {
			if next.IsZero() || at.Before(next) {
				next = at
			}
			continue
		}
		c.env.Events.Eventf(kit.Source{Component: "taint-eviction-controller"}, api.RefTo(&p.ObjectMeta, "v1", "Pod"),
			api.EventNormal, "TaintManagerEviction", "Marking for deletion Pod %s/%s", p.Namespace, p.Name)
		err := kit.Delete(ctx, c.env.Client, kit.Target{Resource: "pods", Namespace: p.Namespace, Name: p.Name}, p.UID, nil)
		if err != nil && !rest.IsNotFound(err) && !rest.IsConflict(err) {
			errs = append(errs, err)
		}
	}
	if !next.IsZero() {
		c.loop.AddAt(node.Name, next)
	}
	return errors.Join(errs...)
}

// evictionTime is when p must leave a node with taints: at once for a
// taint it does not tolerate, at the end of the shortest
// tolerationSeconds otherwise; false when it tolerates them all for ever.
func evictionTime(p *api.Pod, taints []api.Taint) (time.Time, bool) {
	var at time.Time
	found := false
	for _, t := range taints {
		tols := withDefaults(p.Spec.Tolerations, t)
		tol, ok := matching(tols, t)
		if !ok {
			return time.Time{}, true
		}
		if tol.TolerationSeconds == nil {
			continue
		}
		added := time.Time{}
		if t.TimeAdded != nil {
			added = t.TimeAdded.Time
		}
		end := added.Add(time.Duration(max(*tol.TolerationSeconds, 0)) * time.Second)
		if !found || end.Before(at) {
			at, found = end, true
		}
	}
	return at, found
}

// withDefaults adds the admission's 300 s toleration for the not-ready
// and unreachable taints when the pod has none for t.
func withDefaults(tols []api.Toleration, t api.Taint) []api.Toleration {
	if t.Key != api.TaintNodeNotReady && t.Key != api.TaintNodeUnreachable {
		return tols
	}
	if _, ok := matching(tols, t); ok {
		return tols
	}
	s := int64(defaultTolerationSeconds)
	return append(tols, api.Toleration{Key: t.Key, Operator: "Exists", Effect: api.TaintNoExecute, TolerationSeconds: &s})
}

// matching returns the toleration in tols that tolerates t.
func matching(tols []api.Toleration, t api.Taint) (api.Toleration, bool) {
	for _, tol := range tols {
		if api.Tolerates([]api.Toleration{tol}, t) {
			return tol, true
		}
	}
	return api.Toleration{}, false
}
