package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of dynamic resource allocation (resource.k8s.io): device
// classes, resource claims and their templates, resource slices.

func validateDeviceClass(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	for i, s := range items(spec, "selectors") {
		if present(s, "cel") == nil {
			v.required(index("spec.selectors", i)+".cel", "")
		}
	}
	for i, c := range items(spec, "config") {
		if o := present(c, "opaque"); o != nil && str(o, "driver") == "" {
			v.required(index("spec.config", i)+".opaque.driver", "")
		}
	}
}

func validateResourceClaim(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.deviceRequests("spec.devices.requests", sub(sub(obj, "spec"), "devices"))
}

func validateResourceClaimTemplate(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.deviceRequests("spec.spec.devices.requests", sub(sub(sub(obj, "spec"), "spec"), "devices"))
}

// deviceRequests checks a claim's device requests: unique label names,
// exactly one of exactly and firstAvailable, an exact request's class
// and allocation mode.
func (v *validator) deviceRequests(p string, devices *jsonv.Value) {
	seen := map[string]bool{}
	for i, r := range items(devices, "requests") {
		rp := index(p, i)
		name := str(r, "name")
		v.problems(rp+".name", name, validation.LabelProblems(name))
		exactly, first := present(r, "exactly"), !empty(r, "firstAvailable")
		switch {
		case exactly == nil && !first:
			v.required(rp, "exactly one of `exactly` or `firstAvailable` is required")
		case exactly != nil && first:
			v.invalidRaw(rp, "null", "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set")
		}
		if exactly != nil {
			if str(exactly, "deviceClassName") == "" {
				v.required(rp+".exactly.deviceClassName", "")
			}
			mode := str(exactly, "allocationMode")
			switch mode {
			case "ExactCount", "":
			case "All":
				if n, ok := integer(exactly, "count"); ok && n != 0 {
					v.invalidRaw(rp+".exactly.count", strconv.FormatInt(n, 10), "must not be specified when allocationMode is 'All'")
				}
			default:
				v.notSupported(rp+".exactly.allocationMode", mode, "All", "ExactCount")
			}
		}
		if seen[name] {
			v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: rp, Value: `{"name":` + strconv.Quote(name) + `}`})
		}
		seen[name] = true
	}
}

func validateResourceSlice(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	driver := str(spec, "driver")
	if driver == "" {
		v.required("spec.driver", "")
	} else {
		v.problems("spec.driver", driver, validation.SubdomainProblems(driver))
	}
	pool := sub(spec, "pool")
	if str(pool, "name") == "" {
		v.required("spec.pool.name", "")
	}
	if n, _ := integer(pool, "resourceSliceCount"); n <= 0 {
		v.invalidRaw("spec.pool.resourceSliceCount", strconv.FormatInt(n, 10), "must be greater than zero")
	}
	if n, _ := integer(pool, "generation"); n < 0 {
		v.invalidRaw("spec.pool.generation", strconv.FormatInt(n, 10), "must be greater than or equal to zero")
	}
	set := 0
	for _, k := range []string{"nodeName", "nodeSelector"} {
		if !empty(spec, k) {
			set++
		}
	}
	for _, k := range []string{"allNodes", "perDeviceNodeSelection"} {
		if b := spec.Get(k); b != nil && b.Kind == jsonv.Bool && b.B {
			set++
		}
	}
	if set == 0 {
		v.required("spec", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")
	}
	seen := map[string]bool{}
	for i, d := range items(spec, "devices") {
		name := str(d, "name")
		if seen[name] {
			v.duplicate(index("spec.devices", i), name)
		}
		seen[name] = true
	}
}
