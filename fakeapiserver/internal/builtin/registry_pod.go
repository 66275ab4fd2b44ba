package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// What the real server's Pod registry and its default admission plugins
// (DefaultTolerationSeconds, Priority) do to a new Pod.

// PriorityClass is what the Priority admission plugin reads of a class.
type PriorityClass struct {
	Name             string
	Value            int64
	PreemptionPolicy string
}

// PriorityLookup finds a PriorityClass by name; the name "" asks for the
// global default class. found is false when there is no such class.
type PriorityLookup func(name string) (pc PriorityClass, found bool)

// podStatusOnCreate replaces a new Pod's status: phase Pending, its QoS
// class, and the PodScheduled condition of a pod with scheduling gates.
func podStatusOnCreate(obj *jsonv.Value) {
	spec := present(obj, "spec")
	status := object(
		jsonv.Member{Key: "phase", Value: jsonv.NewString("Pending")},
	)
	if spec != nil && !empty(spec, "schedulingGates") {
		status.Set("conditions", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{object(
			jsonv.Member{Key: "type", Value: jsonv.NewString("PodScheduled")},
			jsonv.Member{Key: "status", Value: jsonv.NewString("False")},
			jsonv.Member{Key: "lastProbeTime"},
			jsonv.Member{Key: "lastTransitionTime"},
			jsonv.Member{Key: "reason", Value: jsonv.NewString("SchedulingGated")},
			jsonv.Member{Key: "message", Value: jsonv.NewString("Scheduling is blocked due to non-empty scheduling gates")},
		)}})
	}
	status.Set("qosClass", jsonv.NewString(qosClass(spec)))
	obj.Set("status", status)
}

// qosClass computes a pod's QoS class from its spec as the real server
// does: from the pod-level resources when they name cpu, memory or huge
// pages, else from each init and regular container's (any Burstable
// container, or a mix of classes, makes the pod Burstable).
func qosClass(spec *jsonv.Value) string {
	if spec == nil {
		return "BestEffort"
	}
	if res := present(spec, "resources"); res != nil && podLevelSet(res) {
		return requirementsQOS(res)
	}
	pod := ""
	burstable := false
	for _, list := range []string{"initContainers", "containers"} {
		each(spec, list, func(c *jsonv.Value) {
			q := requirementsQOS(present(c, "resources"))
			switch {
			case q == "Burstable":
				burstable = true
			case pod == "":
				pod = q
			case pod != q:
				burstable = true
			}
		})
	}
	switch {
	case burstable:
		return "Burstable"
	case pod == "":
		return "BestEffort"
	}
	return pod
}

// podLevelSet reports whether pod-level resources name a resource the
// pod level supports (cpu, memory, huge pages).
func podLevelSet(res *jsonv.Value) bool {
	for _, key := range []string{"requests", "limits"} {
		if l := present(res, key); l != nil {
			for _, m := range l.Obj {
				if m.Key == "cpu" || m.Key == "memory" || len(m.Key) > 10 && m.Key[:10] == "hugepages-" {
					return true
				}
			}
		}
	}
	return false
}

// requirementsQOS classifies one set of requests and limits: nothing set
// is BestEffort; otherwise cpu and memory each are Guaranteed (request
// equals a non-zero limit), BestEffort (both zero) or Burstable, and any
// Burstable or a mix makes the whole Burstable.
func requirementsQOS(res *jsonv.Value) string {
	var reqs, lims *jsonv.Value
	if res != nil {
		reqs, lims = present(res, "requests"), present(res, "limits")
	}
	if (reqs == nil || len(reqs.Obj) == 0) && (lims == nil || len(lims.Obj) == 0) {
		return "BestEffort"
	}
	class := ""
	for _, name := range []string{"cpu", "memory"} {
		req, lim := reqs.Get(name), lims.Get(name)
		var q string
		switch {
		case !sameQuantity(req, lim):
			return "Burstable"
		case quantityOrZero(req).Sign() == 0:
			q = "BestEffort"
		default:
			q = "Guaranteed"
		}
		if class == "" {
			class = q
		} else if class != q {
			return "Burstable"
		}
	}
	return class
}

// defaultTolerations adds the NoExecute tolerations of not-ready and
// unreachable nodes (300 s) a Pod does not already have, as the
// DefaultTolerationSeconds plugin does.
func defaultTolerations(spec *jsonv.Value) {
	notReady, unreachable := false, false
	each(spec, "tolerations", func(t *jsonv.Value) {
		key, effect := str(t, "key"), str(t, "effect")
		if effect != "" && effect != "NoExecute" {
			return
		}
		if key == "" || key == "node.kubernetes.io/not-ready" {
			notReady = true
		}
		if key == "" || key == "node.kubernetes.io/unreachable" {
			unreachable = true
		}
	})
	var add []jsonv.Value
	for _, t := range []struct {
		key  string
		have bool
	}{{"node.kubernetes.io/not-ready", notReady}, {"node.kubernetes.io/unreachable", unreachable}} {
		if !t.have {
			add = append(add, object(
				jsonv.Member{Key: "key", Value: jsonv.NewString(t.key)},
				jsonv.Member{Key: "operator", Value: jsonv.NewString("Exists")},
				jsonv.Member{Key: "effect", Value: jsonv.NewString("NoExecute")},
				jsonv.Member{Key: "tolerationSeconds", Value: number(300)},
			))
		}
	}
	if len(add) == 0 {
		return
	}
	if tl := spec.Get("tolerations"); tl != nil && tl.Kind == jsonv.Array {
		tl.Arr = append(tl.Arr, add...)
		return
	}
	spec.Set("tolerations", jsonv.Value{Kind: jsonv.Array, Arr: add})
}

// admitPriority sets a new Pod's priority and preemption policy from its
// priority class as the Priority plugin does (no class: priority 0,
// PreemptLowerPriority). It returns the plugin's refusal, "" when
// admitted.
func admitPriority(spec *jsonv.Value, lookup PriorityLookup) string {
	name := str(spec, "priorityClassName")
	pc := PriorityClass{PreemptionPolicy: "PreemptLowerPriority"}
	if lookup != nil {
		if found, ok := lookup(name); ok {
			pc = found
			if pc.PreemptionPolicy == "" {
				pc.PreemptionPolicy = "PreemptLowerPriority"
			}
		} else if name != "" {
			return "no PriorityClass with name " + name + " was found"
		}
	} else if name != "" {
		return "no PriorityClass with name " + name + " was found"
	}
	if pc.Name != "" {
		spec.Set("priorityClassName", jsonv.NewString(pc.Name))
	}
	want := number(pc.Value).Str
	if p := spec.Get("priority"); p != nil && p.Kind == jsonv.Number && p.Str != want {
		return "the integer value of priority (" + p.Str + ") must not be provided in pod spec; priority admission controller computed " + want + " from the given PriorityClass name"
	}
	spec.Set("priority", number(pc.Value))
	if p := str(spec, "preemptionPolicy"); p != "" && p != pc.PreemptionPolicy {
		return "the string value of PreemptionPolicy (" + p + ") must not be provided in pod spec; priority admission controller computed " + pc.PreemptionPolicy + " from the given PriorityClass name"
	}
	spec.Set("preemptionPolicy", jsonv.NewString(pc.PreemptionPolicy))
	return ""
}

// mergeMatchLabelKeys does what the real pod strategy does on create
// with the label keys of pod affinity terms and topology spread
// constraints: for each key the pod has a label of, the term's or
// constraint's selector gets an expression, In (matchLabelKeys) or NotIn
// (mismatchLabelKeys) that label's value. A term without a selector is
// left alone (it matches nothing).
func mergeMatchLabelKeys(labels map[string]string, spec *jsonv.Value) {
	merge := func(t *jsonv.Value) {
		sel := present(t, "labelSelector")
		if sel == nil {
			return
		}
		for _, km := range [][2]string{{"matchLabelKeys", "In"}, {"mismatchLabelKeys", "NotIn"}} {
			for _, k := range stringsOf(t, km[0]) {
				val, ok := labels[k]
				if !ok {
					continue
				}
				exprs := sel.Get("matchExpressions")
				if exprs == nil || exprs.Kind != jsonv.Array {
					sel.Set("matchExpressions", jsonv.Value{Kind: jsonv.Array})
					exprs = sel.Get("matchExpressions")
				}
				exprs.Arr = append(exprs.Arr, object(
					jsonv.Member{Key: "key", Value: jsonv.NewString(k)},
					jsonv.Member{Key: "operator", Value: jsonv.NewString(km[1])},
					jsonv.Member{Key: "values", Value: stringArray(val)}))
			}
		}
	}
	if a := present(spec, "affinity"); a != nil {
		for _, k := range []string{"podAffinity", "podAntiAffinity"} {
			pa := present(a, k)
			if pa == nil {
				continue
			}
			each(pa, "requiredDuringSchedulingIgnoredDuringExecution", merge)
			each(pa, "preferredDuringSchedulingIgnoredDuringExecution", func(w *jsonv.Value) {
				if t := present(w, "podAffinityTerm"); t != nil {
					merge(t)
				}
			})
		}
	}
	each(spec, "topologySpreadConstraints", func(c *jsonv.Value) {
		// Constraints have no mismatchLabelKeys.
		merge(c)
	})
}
