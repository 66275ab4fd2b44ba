package scheduler

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// schedule makes one attempt at placing the pod key.
func (s *Scheduler) schedule(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := s.pods.Lister().Namespace(ns).Get(name)
	if err != nil || !isPending(pod) {
		return nil
	}
	if s.usage.isAssumed(key) {
		return nil // bound already; the informer has not shown it yet
	}

	infos := s.nodeInfos()
	req := s.usage.costOfKey(key, pod).requests
	misfits := map[string]misfit{}
	var best *nodeInfo
	bestScore := -1
	for _, n := range infos {
		if m := fits(pod, req, n); len(m.reasons) > 0 {
			misfits[n.node.Name] = m
			continue
		}
		if sc := s.score(pod, n); sc > bestScore || (sc == bestScore && n.node.Name < best.node.Name) {
			best, bestScore = n, sc
		}
	}
	if best == nil {
		return s.unschedulableNow(ctx, key, pod, fitError(len(infos), misfits))
	}
	return s.bind(ctx, key, pod, best.node.Name)
}

// nodeInfos returns every node with what it runs.
func (s *Scheduler) nodeInfos() []*nodeInfo {
	nodes := s.nodes.Lister().List(selector.Everything())
	infos := make([]*nodeInfo, len(nodes))
	for i, n := range nodes {
		infos[i] = s.usage.on(n)
	}
	return infos
}

// score rates a node that fits: the share of its cpu and memory left
// free after the pod (0–100 each, averaged), plus the weights of the
// pod's preferred node affinity terms it matches.
func (s *Scheduler) score(p *api.Pod, n *nodeInfo) int {
	c := s.usage.costOfKey(meta.Key(p), p)
	cpu, mem := c.nonZeroCPU, c.nonZeroMem
	free := func(name string, want int64) int {
		alloc, _ := n.node.Status.Allocatable.Milli(name)
		if alloc <= 0 {
			return 0
		}
		left := alloc - n.nonZero[name] - want
		return int(max(left, 0) * 100 / alloc)
	}
	sc := (free("cpu", cpu) + free("memory", mem)) / 2
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if api.MatchesTerm(t.Preference, n.node) {
				sc += int(t.Weight)
			}
		}
	}
	return sc
}

// bind assigns pod to node: the pod counts on the node at once, and
// the Binding is sent on a goroutine of its own, as kube-scheduler's
// binding cycle runs beside its scheduling cycle, so one slow request
// does not hold up the next decision. A failed bind forgets the node and
// tries the pod again.
func (s *Scheduler) bind(ctx context.Context, key string, pod *api.Pod, node string) error {
	s.usage.assume(key, pod, node)
	s.mu.Lock()
	delete(s.unschedulable, key)
	s.mu.Unlock()
	select {
	case s.bindSlots <- struct{}{}:
	case <-ctx.Done():
		return nil
	}
	s.binds.Go(func() {
		defer func() { <-s.bindSlots }()
		if err := s.sendBinding(ctx, pod, node); err != nil {
			s.usage.unassume(key)
			if ctx.Err() == nil {
				// A pod bound by someone else shows up bound and is not
				// scheduled again; any other pod is tried anew.
				s.loop.Logger().Info("bind failed; retrying", "pod", key, "node", node, "err", err)
				s.loop.Retry(key)
			}
		}
	})
	return nil
}

// sendBinding posts pod's Binding to node and records the Scheduled
// event. A pod gone meanwhile is no error.
func (s *Scheduler) sendBinding(ctx context.Context, pod *api.Pod, node string) error {
	binding := map[string]any{
		"apiVersion": "v1", "kind": "Binding",
		"metadata": map[string]any{"name": pod.Name, "namespace": pod.Namespace, "uid": pod.UID},
		"target":   map[string]any{"kind": "Node", "name": node},
	}
	err := s.env.Client.Post().Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource("binding").Body(binding).Do(ctx).Error()
	switch {
	case rest.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("bind %s/%s to %s: %w", pod.Namespace, pod.Name, node, err)
	}
	s.events.Eventf(api.RefTo(&pod.ObjectMeta, "v1", "Pod"), nil, api.EventNormal,
		"Scheduled", "Binding", "Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, node)
	return nil
}

// unschedulableNow reports that pod fits nowhere: the PodScheduled=False
// condition (written when it changes) and a FailedScheduling event; the
// pod is tried again when the cluster changes or after RetryInterval.
func (s *Scheduler) unschedulableNow(ctx context.Context, key string, pod *api.Pod, msg string) error {
	s.mu.Lock()
	s.unschedulable[key] = true
	s.mu.Unlock()
	s.loop.AddAfter(key, s.opts.RetryInterval)
	s.events.Eventf(api.RefTo(&pod.ObjectMeta, "v1", "Pod"), nil, api.EventWarning, "FailedScheduling", "Scheduling", "%s", truncateNote(msg))
	if c := pod.Status.Condition(api.PodScheduled); c != nil && c.Status == api.ConditionFalse && c.Reason == api.ReasonUnschedulable && c.Message == msg {
		return nil
	}
	st := pod.Status
	st.Conditions = append([]api.PodCondition(nil), pod.Status.Conditions...)
	if st.Phase == "" {
		st.Phase = api.PodPending
	}
	st.SetCondition(api.PodCondition{
		Type: api.PodScheduled, Status: api.ConditionFalse, Reason: api.ReasonUnschedulable, Message: msg,
		LastTransitionTime: meta.NewTime(s.env.Clock.Now()),
	})
	err := kit.PutStatus(ctx, s.env.Client, kit.Target{Resource: "pods"}, "v1", "Pod", &pod.ObjectMeta, st, nil)
	if rest.IsNotFound(err) {
		return nil
	}
	return err
}
