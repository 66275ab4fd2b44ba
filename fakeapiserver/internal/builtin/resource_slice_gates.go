package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// dropDisabledSliceFields drops the ResourceSlice fields whose feature
// gates are off by default in 1.37, as the real registry does on create
// and update: the spec's partitionTypeAttribute (DRAPartitionableDevicesType)
// and skipNodeOperations (DRAOptionalNodeOperations), a device's
// nodeAllocatableResources (DRANodeAllocatableResources) and list-valued
// attributes (DRAListTypeAttributes), and a counter consumption's
// compatibilityGroups (DRADeviceCompatibilityGroups). A stored slice
// never holds them, so the real server's exception for fields already
// in use never applies.
func dropDisabledSliceFields(obj *jsonv.Value) {
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	spec.Delete("partitionTypeAttribute")
	spec.Delete("skipNodeOperations")
	each(spec, "devices", func(d *jsonv.Value) {
		d.Delete("nodeAllocatableResources")
		if attrs := present(d, "attributes"); attrs != nil {
			for i := range attrs.Obj {
				if a := &attrs.Obj[i].Value; a.Kind == jsonv.Object {
					for _, k := range []string{"bools", "ints", "strings", "versions"} {
						a.Delete(k)
					}
				}
			}
		}
		each(d, "consumesCounters", func(c *jsonv.Value) { c.Delete("compatibilityGroups") })
	})
}
