package builtin

import (
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	kcel "github.com/kubecache/kubecache/fakeapiserver/internal/cel"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of dynamic resource allocation (resource.k8s.io): device
// classes, resource claims and their templates, resource slices.

func validateDeviceClass(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	v.deviceSelectors("spec.selectors", spec)
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
		for j, sr := range items(r, "firstAvailable") {
			v.deviceSelectors(index(rp+".firstAvailable", j)+".selectors", sr)
		}
		if exactly != nil {
			v.deviceSelectors(rp+".exactly.selectors", exactly)
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
	v.resourceSlice(obj, nil)
}

// resourceSlice checks a slice; old is the stored one on an update (nil
// on a create), whose unchanged fields keep it from some checks:
// immutable pool name, driver and node name, and a device whose capacity
// or taints are those of the stored device of its name is not checked
// there again, as the real validator skips them.
func (v *validator) resourceSlice(obj, old *jsonv.Value) {
	spec := sub(obj, "spec")
	v.driverName("spec.driver", str(spec, "driver"))
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
	var oldSpec *jsonv.Value
	if old != nil {
		oldSpec = sub(old, "spec")
		v.immutableString("spec.pool.name", sub(spec, "pool"), sub(oldSpec, "pool"), "name")
		v.immutableString("spec.driver", spec, oldSpec, "driver")
		v.immutableString("spec.nodeName", spec, oldSpec, "nodeName")
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
	if !unset(spec, "sharedCounters") && !unset(spec, "devices") {
		v.invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed")
	}
	v.sliceDevices("spec.devices", spec, oldSpec)
	v.sharedCounters("spec.sharedCounters", spec)
}

// immutableString reports obj.key changed from old's: its new value, or
// null when it is left out.
func (v *validator) immutableString(p string, obj, old *jsonv.Value, key string) {
	if same(obj, old, key) {
		return
	}
	if x := obj.Get(key); x != nil && x.Kind == jsonv.String {
		v.invalid(p, x.Str, "field is immutable")
		return
	}
	v.invalidRaw(p, "null", "field is immutable")
}

// Device limits of a slice: 64 when a device has taints or consumes
// counters, 128 otherwise.
const (
	maxSliceDevices         = 128
	maxSliceDevicesAdvanced = 64
)

// sliceDevices checks a slice's devices: at most the limit (then nothing
// more), each valid, with unique names. oldSpec is the stored slice's
// spec on an update, nil on a create.
func (v *validator) sliceDevices(p string, spec, oldSpec *jsonv.Value) {
	devices := items(spec, "devices")
	limit := maxSliceDevices
	for _, d := range devices {
		if arrayLen(d, "taints") > 0 || arrayLen(d, "consumesCounters") > 0 {
			limit = maxSliceDevicesAdvanced
		}
	}
	if n := arrayLen(spec, "devices"); n > limit {
		v.tooMany(p, n, limit)
		return
	}
	seen := map[string]bool{}
	perDevice := isTrue(spec, "perDeviceNodeSelection")
	for i, d := range devices {
		v.device(index(p, i), d, storedDevice(oldSpec, str(d, "name")), perDevice)
		name := str(d, "name")
		if seen[name] {
			v.duplicate(index(p, i), name)
		}
		seen[name] = true
	}
}

// validateDeviceTaintRule checks a DeviceTaintRule: the driver, pool and
// device its selector names, and its taint's key, value and effect.
func validateDeviceTaintRule(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	if sel := present(spec, "deviceSelector"); sel != nil {
		const p = "spec.deviceSelector"
		if d := sel.Get("driver"); d != nil && d.Kind == jsonv.String {
			v.driverName(p+".driver", d.Str)
		}
		if pool := sel.Get("pool"); pool != nil && pool.Kind == jsonv.String {
			v.poolName(p+".pool", pool.Str)
		}
		if d := sel.Get("device"); d != nil && d.Kind == jsonv.String {
			v.problems(p+".device", d.Str, validation.LabelProblems(d.Str))
		}
	}
	v.deviceTaint("spec.taint", sub(spec, "taint"))
}

// deviceTaint checks a device taint: a qualified key, a label value and
// one of the effects.
func (v *validator) deviceTaint(p string, t *jsonv.Value) {
	k := str(t, "key")
	v.problems(p+".key", k, qualifiedNameProblems(k))
	if val := str(t, "value"); val != "" {
		v.problems(p+".value", val, labelValueProblems(val))
	}
	switch e := str(t, "effect"); e {
	case "":
		v.required(p+".effect", "")
	case "NoExecute", "NoSchedule", "None":
	default:
		v.notSupported(p+".effect", e, "NoExecute", "NoSchedule", "None")
	}
}

// driverName checks a DRA or CSI driver name: a subdomain of at most 63
// characters, compared in lower case.
func (v *validator) driverName(p, name string) {
	if v.requiredWithin(p, name, 63) {
		v.problems(p, name, validation.SubdomainProblems(strings.ToLower(name)))
	}
}

// poolName checks a resource pool's name: subdomains joined by slashes,
// at most 253 characters.
func (v *validator) poolName(p, name string) {
	if !v.requiredWithin(p, name, 253) {
		return
	}
	for _, part := range strings.Split(name, "/") {
		v.problems(p, part, validation.SubdomainProblems(part))
	}
}

// requiredWithin reports an empty name as required and one over limit
// bytes as too long; it returns whether the name is set.
func (v *validator) requiredWithin(p, name string, limit int) bool {
	if name == "" {
		v.required(p, "")
		return false
	}
	if len(name) > limit {
		v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: p, Detail: "may not be more than " + strconv.Itoa(limit) + " bytes"})
	}
	return true
}

// maxSelectorBytes bounds a device selector's expression; a longer one
// is not compiled.
const maxSelectorBytes = 10 * 1024

// deviceSelectors checks the selectors under obj: each has a CEL
// expression, which must compile to a bool against the typed device.
func (v *validator) deviceSelectors(p string, obj *jsonv.Value) {
	for i, s := range items(obj, "selectors") {
		c := present(s, "cel")
		if c == nil {
			v.required(index(p, i)+".cel", "")
			continue
		}
		expr := str(c, "expression")
		if len(expr) > maxSelectorBytes {
			v.tooLong(index(p, i)+".cel.expression", maxSelectorBytes)
			continue
		}
		switch msg, tooComplex := kcel.DeviceSelectorError(expr); {
		case msg != "":
			v.invalid(index(p, i)+".cel.expression", expr, msg)
		case tooComplex:
			v.forbidden(index(p, i)+".cel.expression", "too complex, exceeds cost limit")
		}
	}
}
