package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Validation of containers' resize policies and of ephemeral containers,
// which only their own subresource adds.

// resizePolicy checks a container's resize policy: cpu and memory at
// most once each, a known restart policy, NotRequired under a pod that
// never restarts, and no restart of an init container that is not a
// sidecar.
func (v *validator) resizePolicy(p string, c *jsonv.Value, podRestart string, init bool) {
	seen := map[string]bool{}
	sidecar := str(c, "restartPolicy") == "Always"
	for i, rp := range items(c, "resizePolicy") {
		name, policy := str(rp, "resourceName"), str(rp, "restartPolicy")
		if seen[name] {
			v.duplicate(index(p, i), name)
		}
		seen[name] = true
		switch name {
		case "cpu", "memory":
		case "":
			v.required(p, "")
		default:
			v.notSupported(p, name, "cpu", "memory")
		}
		switch policy {
		case "NotRequired", "RestartContainer":
		case "":
			v.required(p, "")
		default:
			v.notSupported(p, policy, "NotRequired", "RestartContainer")
		}
		if podRestart == "Never" && policy != "NotRequired" {
			v.invalid(p, policy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'")
		}
		if init && !sidecar && policy == "RestartContainer" {
			v.invalid(index(p, i)+".restartPolicy", policy, "must not be set to 'RestartContainer' for non-sidecar initContainers")
		}
	}
}

// podCreate adds the checks only a Pod's create makes: no ephemeral
// containers, and no node before its scheduling gates are gone.
func podCreate(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	if !empty(spec, "ephemeralContainers") {
		v.forbidden("spec.ephemeralContainers", "cannot be set on create")
	}
	if str(spec, "nodeName") != "" && !empty(spec, "schedulingGates") {
		v.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared")
	}
}
