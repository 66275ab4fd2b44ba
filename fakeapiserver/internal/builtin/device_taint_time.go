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
