package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// The pod-level resources a real server fills in when a new Pod sets
// some (PodLevelResources and PodLevelResourcesFixDefaulting, both on
// in 1.37). It does so in the Pod registry, after the containers'
// requests were defaulted from their limits, and for Pods only: a pod
// template keeps what it was given.

// defaultPodLevelResources completes the pod-level requests and limits
// of a Pod spec that names any, in the real server's order:
//
//  1. a huge page size the containers limit and the pod neither limits
//     nor requests gets the containers' aggregate limit;
//  2. cpu and memory the pod does not request get the containers'
//     aggregate requests, and every other cpu, memory or huge page
//     limit of the pod becomes its request too;
//  3. a resource the pod requests without a limit, when every container
//     limits it, gets the larger of the pod's request and the
//     containers' aggregate limit.
//
// The aggregates are pod_resource_sum.go's: the regular and sidecar
// containers add up, a plain init container counts alone beside the
// sidecars before it.
func defaultPodLevelResources(spec *jsonv.Value) {
	res := present(spec, "resources")
	if res == nil || quantityCount(res, "requests")+quantityCount(res, "limits") == 0 {
		return
	}
	reqs, lims := quantityList(res, "requests"), quantityList(res, "limits")

	aggLims := aggregateContainerResources(spec, "limits")
	for _, name := range sortedQuantityKeys(aggLims) {
		if isHugePages(name) && reqs.Get(name) == nil && lims.Get(name) == nil {
			lims.Set(name, jsonv.NewString(aggLims[name].String()))
		}
	}

	aggReqs := aggregateContainerResources(spec, "requests")
	for _, name := range sortedQuantityKeys(aggReqs) {
		if (name == "cpu" || name == "memory") && reqs.Get(name) == nil {
			reqs.Set(name, jsonv.NewString(aggReqs[name].String()))
		}
	}
	for _, m := range lims.Obj {
		if podLevelResource(m.Key) && reqs.Get(m.Key) == nil {
			reqs.Set(m.Key, m.Value.Clone())
		}
	}

	for _, m := range reqs.Obj {
		if !podLevelResource(m.Key) || lims.Get(m.Key) != nil || !everyContainerLimits(spec, m.Key) {
			continue
		}
		agg, ok := aggLims[m.Key]
		if !ok {
			continue
		}
		if r, ok := quantityValue(&m.Value); ok && r.Cmp(agg.value) > 0 {
			lims.Set(m.Key, m.Value.Clone())
		} else {
			lims.Set(m.Key, jsonv.NewString(agg.String()))
		}
	}

	// A list left empty stays unset, as the real server leaves it.
	for _, l := range []struct {
		key  string
		list *jsonv.Value
	}{{"requests", reqs}, {"limits", lims}} {
		if len(l.list.Obj) > 0 {
			res.Set(l.key, *l.list)
		}
	}
}

// quantityCount is the number of entries of the resource list under key.
func quantityCount(res *jsonv.Value, key string) int {
	if l := present(res, key); l != nil {
		return len(l.Obj)
	}
	return 0
}

// quantityList returns a copy of the resource list under key, empty
// when there is none.
func quantityList(res *jsonv.Value, key string) *jsonv.Value {
	if l := present(res, key); l != nil {
		c := l.Clone()
		return &c
	}
	o := jsonv.NewObject()
	return &o
}

// podLevelResource reports a resource the pod level manages: cpu,
// memory and huge pages.
func podLevelResource(name string) bool {
	return name == "cpu" || name == "memory" || isHugePages(name)
}

// everyContainerLimits reports whether every init, regular and
// ephemeral container of spec sets a limit for name.
func everyContainerLimits(spec *jsonv.Value, name string) bool {
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range items(spec, list) {
			if sub(sub(c, "resources"), "limits").Get(name) == nil {
				return false
			}
		}
	}
	return true
}
