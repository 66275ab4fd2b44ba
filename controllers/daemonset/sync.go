package daemonset

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// dsTarget is where DaemonSets live.
var dsTarget = kit.Target{Group: "apps", Version: "v1", Resource: "daemonsets"}

// state is what one reconcile knows: the DaemonSet, its template's spec
// as placement reads it, the hash of its update revision, the nodes and
// the daemon pods by node.
type state struct {
	ds     *api.DaemonSet
	spec   api.PodSpec
	hash   string
	nodes  []*api.Node
	byNode map[string][]*api.Pod
	now    time.Time
}

// active returns the pods on node that run or will run: neither finished
// nor being deleted.
func (s *state) active(node string) []*api.Pod {
	var out []*api.Pod
	for _, p := range s.byNode[node] {
		if api.IsPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// sync reconciles the DaemonSet key: settle its revision, claim its
// pods, create and delete pods so that each node that should run a
// daemon runs one, roll pods of an old revision, write the status.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	ds, err := c.dss.Lister().Namespace(ns).Get(name)
	if err != nil {
		c.expect.Forget(key) // deleted: its pods go with the garbage collector
		return nil
	}
	sel, err := ds.Spec.Selector.Selector()
	if err != nil || ds.Spec.Selector.Empty() {
		c.loop.Logger().Warn("invalid selector", "daemonset", key, "err", err)
		return nil
	}
	s := &state{ds: ds, byNode: map[string][]*api.Pod{}, now: c.env.Clock.Now()}
	if s.spec, err = templateSpec(ds); err != nil {
		c.loop.Logger().Warn("invalid pod template", "daemonset", key, "err", err)
		return nil
	}
	needsSync := c.expect.Satisfied(key)
	owner := kit.Owner{Meta: &ds.ObjectMeta, APIVersion: apiVersion, Kind: kind, Selector: sel}
	revs, err := kit.SyncRevisions(ctx, c.env.Client, c.revs, owner, &ds.Spec.Template, ds.Status.CollisionCount)
	if err != nil {
		return err
	}
	s.hash = revs.Update.Labels[api.ControllerRevisionHashKey]
	pods, err := kit.Claim(ctx, c.env.Client, owner, podTarget, kit.OwnedOrOrphans(c.pods, ds.Namespace, ds.UID))
	if err != nil {
		return fmt.Errorf("claim pods: %w", err)
	}
	for _, p := range pods {
		s.byNode[nodeOf(p)] = append(s.byNode[nodeOf(p)], p)
	}
	s.nodes = c.nodes.Lister().List(selector.Everything())

	var stepErr error
	if needsSync && ds.DeletionTimestamp == nil {
		stepErr = c.step(ctx, key, s)
	}
	st := computeStatus(s)
	if !reflect.DeepEqual(st, ds.Status) {
		err := kit.PutStatus(ctx, c.env.Client, dsTarget, apiVersion, kind, &ds.ObjectMeta, st, nil)
		if err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	if stepErr != nil {
		return stepErr
	}
	if ds.Spec.MinReadySeconds > 0 && st.NumberReady != st.NumberAvailable {
		c.loop.AddAfter(key, time.Duration(ds.Spec.MinReadySeconds)*time.Second)
	}
	live := map[string]bool{s.hash: true}
	for _, p := range pods {
		live[p.Labels[api.ControllerRevisionHashLabel]] = true
	}
	keep := func(r *api.ControllerRevision) bool { return live[r.Labels[api.ControllerRevisionHashKey]] }
	return kit.TruncateHistory(ctx, c.env.Client, revs, keep, kit.HistoryLimit(ds.Spec.RevisionHistoryLimit))
}

// podTarget is where a pod lives on the server.
func podTarget(p *api.Pod) kit.Target {
	return kit.Target{Resource: "pods", Namespace: p.Namespace, Name: p.Name}
}

// step creates a daemon on each node that should run one and has none,
// deletes failed daemons (to be made again), extra daemons on a node and
// daemons on nodes where they may not continue; when there is nothing of
// that to do, it takes a step of the rolling update.
func (c *Controller) step(ctx context.Context, key string, s *state) error {
	var create []string
	var remove []*api.Pod
	for _, node := range s.nodes {
		pl := place(&s.spec, node)
		for _, p := range s.byNode[node.Name] {
			if p.Status.Phase == api.PodFailed && p.DeletionTimestamp == nil {
				remove = append(remove, p)
			}
		}
		active := s.active(node.Name)
		switch {
		case !pl.shouldContinue:
			remove = append(remove, active...)
		case pl.shouldRun && len(active) == 0:
			create = append(create, node.Name)
		case len(active) > 1:
			remove = append(remove, s.excessDaemons(active)...)
		}
	}
	if len(create) > 0 || len(remove) > 0 {
		return errors.Join(c.deletePods(ctx, key, s.ds, remove), c.createPods(ctx, key, s.ds, s.hash, create))
	}
	if s.ds.Spec.UpdateStrategy.Type == api.OnDeleteStrategy {
		return nil
	}
	return c.rollingUpdate(ctx, key, s)
}
