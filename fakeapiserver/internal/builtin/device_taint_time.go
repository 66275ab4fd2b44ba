package builtin

import (
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// defaultTaintTimes gives each device taint of a ResourceSlice or
// DeviceTaintRule without a timeAdded the time of the write, to the
// second, as the real resource.k8s.io defaulter does. A zero now (no
// clock) leaves them alone.
func defaultTaintTimes(k Kind, obj *jsonv.Value, now time.Time) {
	if now.IsZero() || k.Group != "resource.k8s.io" {
		return
	}
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	stamp := jsonv.NewString(now.UTC().Truncate(time.Second).Format(time.RFC3339))
	setTime := func(t *jsonv.Value) {
		if unset(t, "timeAdded") {
			t.Set("timeAdded", stamp)
		}
	}
	switch k.Kind {
	case "ResourceSlice":
		each(spec, "devices", func(d *jsonv.Value) { each(d, "taints", setTime) })
	case "DeviceTaintRule":
		if t := present(spec, "taint"); t != nil {
			setTime(t)
		}
	}
}

// bumpTaintTime gives an updated DeviceTaintRule whose taint changes its
// effect but keeps the stored timeAdded the time of the write, as the
// real strategy does, so that timeAdded tells when the effect began.
func bumpTaintTime(k Kind, obj, old *jsonv.Value, now time.Time) {
	if now.IsZero() || k.Group != "resource.k8s.io" || k.Kind != "DeviceTaintRule" {
		return
	}
	taint, oldTaint := present(sub(obj, "spec"), "taint"), sub(sub(old, "spec"), "taint")
	if taint == nil || str(taint, "effect") == str(oldTaint, "effect") {
		return
	}
	if instantLeaf(str(taint, "timeAdded")) == instantLeaf(str(oldTaint, "timeAdded")) {
		taint.Set("timeAdded", jsonv.NewString(now.UTC().Truncate(time.Second).Format(time.RFC3339)))
	}
}
