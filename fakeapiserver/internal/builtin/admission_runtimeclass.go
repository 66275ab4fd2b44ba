package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The RuntimeClass admission plugin, on a new Pod: it refuses a
// runtimeClassName that names no class, fills the pod's overhead from
// its class's (refusing a different one), merges the class's scheduling
// into the pod's node selector (refusing a conflict) and tolerations, and
// after validation refuses
// an overhead the class does not define (an overhead set without a
// runtimeClassName among them). Pod templates are not admitted by it.

// RuntimeClass is what the RuntimeClass admission plugin reads of a
// class.
type RuntimeClass struct {
	// Overhead is the class's overhead.podFixed, an object of
	// quantities; HasOverhead is whether the class sets overhead at all.
	Overhead    *jsonv.Value
	HasOverhead bool
	// NodeSelector and Tolerations are the class's scheduling; both nil
	// when it has none.
	NodeSelector *jsonv.Value
	Tolerations  []jsonv.Value
}

// RuntimeClassLookup finds a RuntimeClass by name; found is false when
// there is no such class.
type RuntimeClassLookup func(name string) (rc RuntimeClass, found bool)

// runtimeClassOf returns the class a new Pod's spec names: nil when it
// names none, and the plugin's refusal when the class does not exist
// (a nil lookup knows none).
func runtimeClassOf(spec *jsonv.Value, lookup RuntimeClassLookup) (*RuntimeClass, string) {
	name := spec.Get("runtimeClassName")
	if name == nil || name.Kind != jsonv.String {
		return nil, ""
	}
	if lookup != nil {
		if rc, ok := lookup(name.Str); ok {
			return &rc, ""
		}
	}
	return nil, "pod rejected: RuntimeClass \"" + name.Str + "\" not found"
}

const overheadMismatch = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"

// admitRuntimeClass is the plugin's mutating step on a new Pod's spec.
// It returns the refusal, "" when admitted.
func admitRuntimeClass(spec *jsonv.Value, lookup RuntimeClassLookup) string {
	rc, msg := runtimeClassOf(spec, lookup)
	if msg != "" || rc == nil {
		return msg
	}
	if rc.HasOverhead {
		if pod := present(spec, "overhead"); pod != nil && len(pod.Obj) > 0 && !sameResourceList(pod, rc.Overhead) {
			return overheadMismatch
		}
		if rc.Overhead == nil || len(rc.Overhead.Obj) == 0 {
			spec.Delete("overhead")
		} else {
			spec.Set("overhead", rc.Overhead.Clone())
		}
	}
	return mergeRuntimeClassScheduling(spec, rc)
}

// mergeRuntimeClassScheduling adds the class's node selector to the
// pod's, refusing a key the pod gives another value, and merges the
// class's tolerations after the pod's. It returns the refusal, "" when
// merged.
func mergeRuntimeClassScheduling(spec *jsonv.Value, rc *RuntimeClass) string {
	if rc.NodeSelector != nil && len(rc.NodeSelector.Obj) > 0 {
		pod := present(spec, "nodeSelector")
		if pod == nil || pod.Kind != jsonv.Object {
			spec.Set("nodeSelector", rc.NodeSelector.Clone())
		} else {
			for _, m := range rc.NodeSelector.Obj {
				if have := pod.Get(m.Key); have != nil && have.Str != m.Value.Str {
					return "conflict: runtimeClass.scheduling.nodeSelector[" + m.Key + "] = " + m.Value.Str +
						"; pod.spec.nodeSelector[" + m.Key + "] = " + have.Str
				}
			}
			for _, m := range rc.NodeSelector.Obj {
				pod.Set(m.Key, m.Value)
			}
		}
	}
	if len(rc.Tolerations) > 0 {
		var all []jsonv.Value
		if t := spec.Get("tolerations"); t != nil && t.Kind == jsonv.Array {
			all = append(all, t.Arr...)
		}
		for _, t := range rc.Tolerations {
			all = append(all, t.Clone())
		}
		spec.Set("tolerations", jsonv.Value{Kind: jsonv.Array, Arr: mergeTolerations(all)})
	}
	return ""
}

// mergeTolerations keeps, of tolerations in order, those no other one
// covers: one that another tolerates a superset of is dropped, and of
// equal ones the first is kept.
func mergeTolerations(all []jsonv.Value) []jsonv.Value {
	var merged []jsonv.Value
next:
	for i := range all {
		t := &all[i]
		for j := range merged {
			if tolerates(&merged[j], t) {
				continue next
			}
		}
		for j := i + 1; j < len(all); j++ {
			if !sameToleration(t, &all[j]) && tolerates(&all[j], t) {
				continue next
			}
		}
		merged = append(merged, *t)
	}
	return merged
}

// sameToleration reports whether two tolerations have equal fields.
func sameToleration(a, b *jsonv.Value) bool {
	for _, k := range []string{"key", "operator", "value", "effect"} {
		if str(a, k) != str(b, k) {
			return false
		}
	}
	as, aok := tolerationSeconds(a)
	bs, bok := tolerationSeconds(b)
	return aok == bok && as == bs
}

// tolerationSeconds is a toleration's tolerationSeconds, if it has one.
func tolerationSeconds(t *jsonv.Value) (string, bool) {
	v := t.Get("tolerationSeconds")
	if v == nil || v.Kind != jsonv.Number {
		return "", false
	}
	return v.Str, true
}

// tolerates reports whether toleration ss tolerates every taint t does.
func tolerates(ss, t *jsonv.Value) bool {
	if sameToleration(ss, t) {
		return true
	}
	if str(t, "key") != str(ss, "key") && (str(ss, "key") != "" || str(ss, "operator") != "Exists") {
		return false
	}
	if str(t, "effect") != str(ss, "effect") && str(ss, "effect") != "" {
		return false
	}
	if str(ss, "effect") == "NoExecute" {
		if limit, ok := tolerationSeconds(ss); ok {
			have, tok := tolerationSeconds(t)
			h, _ := strconv.ParseInt(have, 10, 64)
			l, _ := strconv.ParseInt(limit, 10, 64)
			if !tok || h > l {
				return false
			}
		}
	}
	switch str(ss, "operator") {
	case "Equal", "":
		return str(t, "operator") == "Equal" && str(t, "value") == str(ss, "value")
	case "Exists":
		return true
	}
	return false
}

// validateRuntimeClassOverhead is the plugin's validating step on a new Pod's
// spec, after validation: the overhead must be the class's, and without
// a class that defines one there may be none, not even an empty one.
func validateRuntimeClassOverhead(spec *jsonv.Value, lookup RuntimeClassLookup) string {
	rc, msg := runtimeClassOf(spec, lookup)
	if msg != "" {
		return msg
	}
	pod := spec.Get("overhead")
	if pod != nil && pod.Kind == jsonv.Null {
		pod = nil
	}
	if rc != nil && rc.HasOverhead {
		if !sameResourceList(pod, rc.Overhead) {
			return overheadMismatch
		}
		return ""
	}
	if pod != nil {
		return "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
	}
	return ""
}

// sameResourceList reports whether two resource lists hold the same
// names with equal quantities, nil and empty being the same, as semantic
// equality has it.
func sameResourceList(a, b *jsonv.Value) bool {
	var am, bm []jsonv.Member
	if a != nil && a.Kind == jsonv.Object {
		am = a.Obj
	}
	if b != nil && b.Kind == jsonv.Object {
		bm = b.Obj
	}
	if len(am) != len(bm) {
		return false
	}
	for _, m := range am {
		other := b.Get(m.Key)
		if other == nil || !sameQuantity(&m.Value, other) {
			return false
		}
	}
	return true
}
