package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// The RuntimeClass admission plugin, on a new Pod: it refuses a
// runtimeClassName that names no class, fills the pod's overhead from
// its class's (refusing a different one), and after validation refuses
// an overhead the class does not define (an overhead set without a
// runtimeClassName among them). Pod templates are not admitted by it.

// RuntimeClass is what the RuntimeClass admission plugin reads of a
// class.
type RuntimeClass struct {
	// Overhead is the class's overhead.podFixed, an object of
	// quantities; HasOverhead is whether the class sets overhead at all.
	Overhead    *jsonv.Value
	HasOverhead bool
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
	if msg != "" || rc == nil || !rc.HasOverhead {
		return msg
	}
	if pod := present(spec, "overhead"); pod != nil && len(pod.Obj) > 0 && !sameResourceList(pod, rc.Overhead) {
		return overheadMismatch
	}
	if rc.Overhead == nil || len(rc.Overhead.Obj) == 0 {
		spec.Delete("overhead")
	} else {
		spec.Set("overhead", rc.Overhead.Clone())
	}
	return ""
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
