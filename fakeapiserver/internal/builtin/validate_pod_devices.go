package builtin

import (
	"slices"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// volumeDevices checks a container's block devices: each names a
// volume of the pod that is a claim (persistentVolumeClaim or
// ephemeral) and no mount of the container, once, at a path without
// backsteps that no other device or mount of the container uses.
func (v *validator) volumeDevices(path string, c, spec *jsonv.Value) {
	claims := map[string]bool{}
	for _, vol := range items(spec, "volumes") {
		claims[str(vol, "name")] = present(vol, "persistentVolumeClaim") != nil || present(vol, "ephemeral") != nil
	}
	mountPaths := map[string]string{}
	for _, m := range items(c, "volumeMounts") {
		mountPaths[str(m, "name")] = str(m, "mountPath")
	}
	names, paths := map[string]bool{}, map[string]bool{}
	for i, d := range items(c, "volumeDevices") {
		p := index(path, i)
		name, dp := str(d, "name"), str(d, "devicePath")
		isClaim, found := claims[name]
		if name == "" {
			v.required(p+".name", "")
		}
		if names[name] {
			v.invalid(p+".name", name, "must be unique")
		}
		if found && !isClaim {
			v.invalid(p+".name", name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode")
		}
		if !found {
			v.notFound(p+".name", name)
		}
		if dp == "" {
			v.required(p+".devicePath", "")
		}
		if paths[dp] {
			v.invalid(p+".devicePath", dp, "must be unique")
		}
		if dp != "" && slices.Contains(strings.Split(dp, "/"), "..") {
			v.invalid(p+".devicePath", dp, "can not contain backsteps ('..')")
		} else {
			paths[dp] = true
		}
		if _, ok := mountPaths[name]; ok {
			v.invalid(p+".name", name, "must not already exist in volumeMounts")
		}
		for _, mp := range mountPaths {
			if mp == dp {
				v.invalid(p+".devicePath", dp, "must not already exist as a path in volumeMounts")
				break
			}
		}
		if name != "" {
			names[name] = true
		}
	}
}
