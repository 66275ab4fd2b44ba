package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The rules a pod's declared operating system (spec.os.name) brings: a
// Linux pod has no Windows options, and a Windows pod none of the Linux
// security settings, host namespaces or pod-level resources. A pod
// without spec.os is checked by neither list.

// notForWindows is the detail of a field a Windows pod may not set.
const notForWindows = "cannot be set for a windows pod"

// windowsForbiddenPod lists, in the real validator's order, the members
// of a pod's security context a Windows pod may not set.
var windowsForbiddenPod = []string{
	"appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup", "fsGroupChangePolicy",
	"sysctls", "runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy",
	"seLinuxChangePolicy",
}

// windowsForbiddenContainer lists, in the real validator's order, the
// members of a container's security context a Windows pod may not set.
var windowsForbiddenContainer = []string{
	"appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
	"readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount",
	"runAsUser", "runAsGroup",
}

// podOS checks spec.os: a name, linux or windows, and then that OS's
// rules. An unknown or missing name stops there, as on the real server.
func (v *validator) podOS(path string, spec *jsonv.Value) {
	os := present(spec, "os")
	if os == nil {
		return
	}
	switch name := str(os, "name"); name {
	case "linux":
		v.linuxPod(path, spec)
	case "windows":
		v.windowsPod(path, spec)
	case "":
		v.required(path+".os.name", "")
	default:
		v.notSupported(path+".os", name, "linux", "windows")
	}
}

// linuxPod forbids Windows options in the pod's and each container's
// security context.
func (v *validator) linuxPod(path string, spec *jsonv.Value) {
	const detail = "windows options cannot be set for a linux pod"
	if sc := present(spec, "securityContext"); sc != nil && !unset(sc, "windowsOptions") {
		v.forbidden(path+".securityContext.windowsOptions", detail)
	}
	eachPodContainer(path, spec, func(p string, c *jsonv.Value) {
		if sc := present(c, "securityContext"); sc != nil && !unset(sc, "windowsOptions") {
			v.forbidden(p+".securityContext.windowsOptions", detail)
		}
	})
}

// windowsPod forbids what a Windows node cannot do: the Linux members of
// the security contexts, user and host namespaces, a shared process
// namespace, and pod-level resources.
func (v *validator) windowsPod(path string, spec *jsonv.Value) {
	if !unset(spec, "resources") {
		// The real validator says only this of pod-level resources on a
		// Windows pod.
		v.forbidden(path+".resources", "may not be set for a windows pod")
	}
	if sc := present(spec, "securityContext"); sc != nil {
		for _, k := range windowsForbiddenPod {
			set := !unset(sc, k)
			if k == "sysctls" {
				set = !empty(sc, k) // an empty list is no sysctl
			}
			if set {
				v.forbidden(path+".securityContext."+k, notForWindows)
			}
		}
	}
	if !unset(spec, "hostUsers") {
		v.forbidden(path+".hostUsers", notForWindows)
	}
	for _, k := range []string{"hostPID", "hostIPC"} {
		if isTrue(spec, k) {
			v.forbidden(path+"."+k, notForWindows)
		}
	}
	if !unset(spec, "shareProcessNamespace") {
		v.forbidden(path+".shareProcessNamespace", notForWindows)
	}
	eachPodContainer(path, spec, func(p string, c *jsonv.Value) {
		sc := present(c, "securityContext")
		if sc == nil {
			return
		}
		for _, k := range windowsForbiddenContainer {
			if !unset(sc, k) {
				v.forbidden(p+".securityContext."+k, notForWindows)
			}
		}
	})
}

// eachPodContainer calls fn with the path and object of every init,
// regular and ephemeral container, in that order (the real validator's).
func eachPodContainer(path string, spec *jsonv.Value, fn func(p string, c *jsonv.Value)) {
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for i, c := range items(spec, list) {
			fn(index(path+"."+list, i), c)
		}
	}
}
