package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// Go's decoding of {} into a map is an empty map that is set, not nil,
// as [] is for a list. The fake server drops empty omitempty maps when
// it decodes a body (the stored object never has them), and keeps the
// one a rule reads as set: a Pod's spec.overhead, which the RuntimeClass
// admission plugin refuses without a class that defines an overhead,
// even empty. No other rule is known to tell an empty map from an
// absent one (a Pod's nodeSelector: {} is accepted as an absent one).

// emptyOverhead reports whether a Pod's spec gives overhead as {}.
func emptyOverhead(spec *jsonv.Value) bool {
	oh := spec.Get("overhead")
	return oh != nil && oh.Kind == jsonv.Object && len(oh.Obj) == 0
}

// keepEmptyOverhead sets a Pod spec's overhead back to {} when the body
// gave it so (had), after decoding dropped it.
func keepEmptyOverhead(spec *jsonv.Value, had bool) {
	if had && spec != nil && spec.Get("overhead") == nil {
		spec.Set("overhead", jsonv.NewObject())
	}
}

// dropEmptyOverhead removes an empty overhead from a Pod's spec: an
// update compares specs by semantic equality, for which an empty map is
// an absent one.
func dropEmptyOverhead(spec *jsonv.Value) {
	if spec != nil && emptyOverhead(spec) {
		spec.Delete("overhead")
	}
}
