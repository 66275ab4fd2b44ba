package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// dropDisabledSliceFields drops the ResourceSlice fields whose feature
// gates are off by default in 1.37, as the real registry does on create
// and update: the spec's partitionTypeAttribute (DRAPartitionableDevicesType)
// and skipNodeOperations (DRAOptionalNodeOperations), a device's
// nodeAllocatableResources (DRANodeAllocatableResources) and list-valued
// attributes (DRAListTypeAttributes), and a counter consumption's
// compatibilityGroups (DRADeviceCompatibilityGroups). old is the stored
// slice on an update (nil on a create): a gate's fields stay, in every
// device, when old already uses them, as the real registry keeps a field
// in use.
func dropDisabledSliceFields(obj, old *jsonv.Value) {
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	var oldSpec *jsonv.Value
	if old != nil {
		oldSpec = present(old, "spec")
	}
	if oldSpec == nil {
		oldSpec = &jsonv.Value{Kind: jsonv.Object}
	}
	oldDevices := items(oldSpec, "devices")
	anyDevice := func(used func(d *jsonv.Value) bool) bool {
		for _, d := range oldDevices {
			if used(d) {
				return true
			}
		}
		return false
	}
	if unset(oldSpec, "partitionTypeAttribute") {
		spec.Delete("partitionTypeAttribute")
	}
	if arrayLen(oldSpec, "skipNodeOperations") == 0 {
		spec.Delete("skipNodeOperations")
	}
	keepAllocatable := anyDevice(func(d *jsonv.Value) bool { return len(sub(d, "nodeAllocatableResources").Obj) > 0 })
	keepLists := anyDevice(hasListAttribute)
	keepGroups := anyDevice(func(d *jsonv.Value) bool {
		for _, c := range items(d, "consumesCounters") {
			if arrayLen(c, "compatibilityGroups") > 0 {
				return true
			}
		}
		return false
	})
	each(spec, "devices", func(d *jsonv.Value) {
		if !keepAllocatable {
			d.Delete("nodeAllocatableResources")
		}
		if attrs := present(d, "attributes"); attrs != nil && !keepLists {
			for i := range attrs.Obj {
				if a := &attrs.Obj[i].Value; a.Kind == jsonv.Object {
					for _, k := range listAttributeKinds {
						a.Delete(k)
					}
				}
			}
		}
		if !keepGroups {
			each(d, "consumesCounters", func(c *jsonv.Value) { c.Delete("compatibilityGroups") })
		}
	})
}

// listAttributeKinds are the list-valued members of a device attribute.
var listAttributeKinds = []string{"bools", "ints", "strings", "versions"}

// hasListAttribute reports whether a device has an attribute with a list
// value set (an empty list too).
func hasListAttribute(d *jsonv.Value) bool {
	attrs := present(d, "attributes")
	if attrs == nil {
		return false
	}
	for _, m := range attrs.Obj {
		for _, k := range listAttributeKinds {
			if m.Value.Kind == jsonv.Object && !unset(&m.Value, k) {
				return true
			}
		}
	}
	return false
}
