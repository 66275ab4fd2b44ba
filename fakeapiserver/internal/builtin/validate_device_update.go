package builtin

import (
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// What an update of a ResourceSlice compares with the stored slice: the
// real validator does not check again a device's capacity or taints that
// are semantically equal to those of the stored device of the same name
// (quantities by value, times by instant, an empty list or map as an
// absent one).

// storedDevice returns the device named name of a stored slice's spec,
// nil when there is none or oldSpec is nil.
func storedDevice(oldSpec *jsonv.Value, name string) *jsonv.Value {
	if oldSpec == nil {
		return nil
	}
	for _, d := range items(oldSpec, "devices") {
		if str(d, "name") == name {
			return d
		}
	}
	return nil
}

// sameCapacity reports whether two devices' capacity maps are equal (nil
// for one that has none), every quantity compared by value.
func sameCapacity(a, b *jsonv.Value) bool {
	return jsonv.Equal(normalized(a, canonicalLeaf), normalized(b, canonicalLeaf))
}

// sameTaints reports whether two devices' taints are equal, timeAdded
// compared as an instant.
func sameTaints(d, old *jsonv.Value) bool {
	return jsonv.Equal(normalized(d.Get("taints"), instantLeaf), normalized(old.Get("taints"), instantLeaf))
}

// normalized returns a copy of v with its empty lists and maps (at any
// depth, v itself too) left out and each string leaf rewritten by leaf;
// an absent or null v is null.
func normalized(v *jsonv.Value, leaf func(string) string) jsonv.Value {
	if v == nil {
		return jsonv.Value{}
	}
	out := v.Clone()
	normalize(&out, leaf)
	if empty := out.Kind == jsonv.Object && len(out.Obj) == 0 || out.Kind == jsonv.Array && len(out.Arr) == 0; empty {
		return jsonv.Value{}
	}
	return out
}

func normalize(v *jsonv.Value, leaf func(string) string) {
	switch v.Kind {
	case jsonv.String, jsonv.Number:
		v.Kind, v.Str = jsonv.String, leaf(v.Str)
	case jsonv.Array:
		for i := range v.Arr {
			normalize(&v.Arr[i], leaf)
		}
	case jsonv.Object:
		kept := v.Obj[:0]
		for _, m := range v.Obj {
			normalize(&m.Value, leaf)
			if m.Value.Kind == jsonv.Null || m.Value.Kind == jsonv.Object && len(m.Value.Obj) == 0 || m.Value.Kind == jsonv.Array && len(m.Value.Arr) == 0 {
				continue
			}
			kept = append(kept, m)
		}
		v.Obj = kept
	}
}

// canonicalLeaf is a quantity's canonical form (a string that is none
// stays as it is).
func canonicalLeaf(s string) string {
	if c, ok := canonicalQuantity(s, false); ok {
		return c
	}
	return s
}

// instantLeaf is a time's instant in UTC (a string that is none stays as
// it is).
func instantLeaf(s string) string {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	return s
}
