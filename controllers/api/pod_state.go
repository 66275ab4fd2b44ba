package api

import (
	"time"
)

// IsPodReady reports whether the pod's Ready condition is True.
func IsPodReady(p *Pod) bool {
	c := p.Status.Condition(PodReady)
	return c != nil && c.Status == ConditionTrue
}

// IsPodAvailable reports whether the pod has been ready for at least
// minReadySeconds at now.
func IsPodAvailable(p *Pod, minReadySeconds int32, now time.Time) bool {
	c := p.Status.Condition(PodReady)
	if c == nil || c.Status != ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	d := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.IsZero() && !c.LastTransitionTime.Add(d).After(now)
}

// IsPodTerminal reports whether the pod has finished: Succeeded or Failed.
func IsPodTerminal(p *Pod) bool {
	return p.Status.Phase == PodSucceeded || p.Status.Phase == PodFailed
}

// IsPodActive reports whether the pod counts towards a controller's
// replicas: not finished and not being deleted.
func IsPodActive(p *Pod) bool {
	return !IsPodTerminal(p) && p.DeletionTimestamp == nil
}

// IsPodTerminating reports whether the pod is being deleted and has not
// finished yet: the pods a status's terminatingReplicas counts.
func IsPodTerminating(p *Pod) bool {
	return !IsPodTerminal(p) && p.DeletionTimestamp != nil
}

// PodRequests returns the pod's resource requests in milli-units: the
// sum over its containers, or the largest init container's request where
// that is larger, as the scheduler counts them.
func PodRequests(p *Pod) map[string]int64 {
	out := map[string]int64{}
	for _, c := range p.Spec.Containers {
		for name := range c.Resources.Requests {
			v, _ := c.Resources.Requests.Milli(name)
			out[name] += v
		}
	}
	for _, c := range p.Spec.InitContainers {
		for name := range c.Resources.Requests {
			v, _ := c.Resources.Requests.Milli(name)
			out[name] = max(out[name], v)
		}
	}
	return out
}
