package builtin

import (
	"strings"

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

// podCreate adds the checks only a Pod's create makes: the pod-only
// ones, no ephemeral containers, and no node before its scheduling gates
// are gone.
func podCreate(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	podOnlyChecks(v, spec)
	if !empty(spec, "ephemeralContainers") {
		v.forbidden("spec.ephemeralContainers", "cannot be set on create")
	}
	if str(spec, "nodeName") != "" && !empty(spec, "schedulingGates") {
		v.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared")
	}
}

// podOnlyChecks adds the checks a Pod's spec gets and a template's does not:
// a service account token projected only for a named service account,
// and images without surrounding whitespace.
func podOnlyChecks(v *validator, spec *jsonv.Value) {
	if str(spec, "serviceAccountName") == "" {
		for vi, vol := range items(spec, "volumes") {
			for si, src := range items(present(vol, "projected"), "sources") {
				if present(src, "serviceAccountToken") != nil {
					v.forbidden(index(index("spec.volumes", vi)+".projected.sources", si)+".serviceAccountToken", "must not be specified when serviceAccountName is not set")
				}
			}
		}
	}
	for _, list := range []string{"containers", "initContainers"} {
		for i, c := range items(spec, list) {
			if img := str(c, "image"); strings.TrimSpace(img) != img {
				v.invalid(index("spec."+list, i)+".image", img, "must not have leading or trailing whitespace")
			}
		}
	}
}
