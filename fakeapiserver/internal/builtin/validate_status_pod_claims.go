package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// The resource claims a Pod's status reports: the claim made for its
// extended resources, and the status fields whose feature gates are off
// in 1.37.

// extendedClaimStatus checks a pod's extendedResourceClaimStatus as the
// real validatePodExtendedResourceClaimStatus does: at least one request
// mapping, each naming a container (init or regular) and one of its
// requested resources, with a request name that is a DNS label (reported
// at the status's requestName, as the real server does), no mapping
// twice; and the claim's name.
func (v *validator) extendedClaimStatus(status, spec *jsonv.Value) {
	ext := present(status, "extendedResourceClaimStatus")
	if ext == nil {
		return
	}
	const p = "status.extendedResourceClaimStatus"
	containers := map[string]*jsonv.Value{}
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range items(spec, list) {
			containers[str(c, "name")] = c
		}
	}
	mappings := items(ext, "requestMappings")
	if len(mappings) == 0 {
		v.required(p+".requestMappings", "at least one request mapping is required")
	}
	type mappingKey struct{ container, resource, request string }
	seen := map[mappingKey]bool{}
	for i, m := range mappings {
		mp := index(p+".requestMappings", i)
		k := mappingKey{str(m, "containerName"), str(m, "resourceName"), str(m, "requestName")}
		if c, ok := containers[k.container]; !ok {
			v.invalid(mp+".containerName", k.container, "must match the name of an entry in spec.initContainers.name or spec.containers.name")
		} else if sub(sub(c, "resources"), "requests").Get(k.resource) == nil {
			v.invalid(mp+".resourceName", k.resource, "must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests")
		}
		v.problems(p+".requestName", k.request, validation.LabelProblems(k.request))
		if seen[k] {
			v.duplicate(mp+".containerName", k.container)
			v.duplicate(mp+".resourceName", k.resource)
			v.duplicate(mp+".requestName", k.request)
		}
		seen[k] = true
	}
	if name := str(ext, "resourceClaimName"); name == "" {
		v.required(p+".resourceClaimName", "")
	} else {
		v.problems(p+".resourceClaimName", name, validation.SubdomainProblems(name))
	}
}

// dropGatedPodStatus removes from a Pod's status write what the real
// server drops while the field's feature gate is off (all three are off
// in 1.37) and the stored status does not use it yet: volumeHealth
// (CSIVolumeHealth), the containers' volumeMounts[].volumeStatus
// (ImageVolumeWithDigest) and nodeAllocatableResourceClaimStatuses
// (DRANodeAllocatableResources).
func dropGatedPodStatus(status, old *jsonv.Value) {
	for _, k := range []string{"volumeHealth", "nodeAllocatableResourceClaimStatuses"} {
		if empty(old, k) {
			status.Delete(k)
		}
	}
	lists := []string{"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}
	for _, l := range lists {
		for _, c := range items(old, l) {
			for _, m := range items(c, "volumeMounts") {
				if !unset(m, "volumeStatus") {
					return
				}
			}
		}
	}
	for _, l := range lists {
		for _, c := range items(status, l) {
			for _, m := range items(c, "volumeMounts") {
				m.Delete("volumeStatus")
			}
		}
	}
}
