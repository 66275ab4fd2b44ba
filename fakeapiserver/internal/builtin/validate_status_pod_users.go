package builtin

import (
	"math"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// What the kubelet reports of each container beyond its state: the user
// it runs as and the health of the devices allocated to it, checked as
// the real ValidatePodStatusUpdate does.

// resourceHealths are the values a resource's health may take.
var resourceHealths = []string{"Healthy", "Unhealthy", "Unknown"}

// resourceHealthMessageMax is the longest message, in bytes, a resource's
// health may carry.
const resourceHealthMessageMax = 1024

// containerUsers checks the user of each container status at p: a
// windows pod may not report a linux user; otherwise its uid is any
// uid_t and its gid and supplementary groups a group id.
func (v *validator) containerUsers(p string, statuses []*jsonv.Value, spec *jsonv.Value) {
	windows := str(sub(spec, "os"), "name") == "windows"
	for i, s := range statuses {
		linux := present(sub(s, "user"), "linux")
		if linux == nil {
			continue
		}
		lp := index(p, i) + ".user.linux"
		if windows {
			v.forbidden(lp, "cannot be set for a windows pod")
			continue
		}
		if uid, _ := integer(linux, "uid"); uid < 0 || uid > math.MaxUint32 {
			v.invalidRaw(lp+".uid", strconv.FormatInt(uid, 10), "must be between 0 and 4294967295, inclusive")
		}
		gid, _ := integer(linux, "gid")
		v.groupID(lp+".gid", gid)
		if groups := linux.Get("supplementalGroups"); groups != nil && groups.Kind == jsonv.Array {
			for g := range groups.Arr {
				n, _ := strconv.ParseInt(groups.Arr[g].Str, 10, 64)
				v.groupID(index(lp+".supplementalGroups", g), n)
			}
		}
	}
}

// groupID reports a group id outside 0 to 2^31-1.
func (v *validator) groupID(p string, gid int64) {
	if gid < 0 || gid > math.MaxInt32 {
		v.invalidRaw(p, strconv.FormatInt(gid, 10), "must be between 0 and 2147483647, inclusive")
	}
}

// allocatedResourcesStatus checks the allocatedResourcesStatus of each
// container status at p against the container of its name in the spec's
// list (containers or initContainers; a status naming no container has
// only its resources checked): each entry names one of the container's
// requests, or as "claim:<claim>[/<request>]" one of its claims or a
// request the pod's extendedResourceClaimStatus maps to it; each
// resource has a known health, a non-empty message of at most 1024
// bytes when one is given, and an id of its own in the entry.
func (v *validator) allocatedResourcesStatus(p string, statuses []*jsonv.Value, spec, status *jsonv.Value, list string) {
	for i, s := range statuses {
		var container *jsonv.Value
		for _, c := range items(spec, list) {
			if str(c, "name") == str(s, "name") {
				container = c
				break
			}
		}
		for j, a := range items(s, "allocatedResourcesStatus") {
			ap := index(index(p, i)+".allocatedResourcesStatus", j)
			if container != nil {
				v.allocatedResourceName(ap+".name", str(a, "name"), container, present(status, "extendedResourceClaimStatus"))
			}
			ids := map[string]bool{}
			for k, r := range items(a, "resources") {
				rp := index(ap+".resources", k)
				if h := str(r, "health"); !contains(resourceHealths, h) {
					v.notSupported(rp+".health", h, resourceHealths...)
				}
				if msg := r.Get("message"); msg != nil && msg.Kind == jsonv.String {
					switch {
					case msg.Str == "":
						v.required(rp+".message", "must be non-empty if specified")
					case len(msg.Str) > resourceHealthMessageMax:
						v.tooLong(rp+".message", resourceHealthMessageMax)
					}
				}
				id := str(r, "resourceID")
				if ids[id] {
					v.duplicate(rp+".resourceID", id)
				}
				ids[id] = true
			}
		}
	}
}

// allocatedResourceName reports an allocated resource's name that is
// neither one of the container's requests nor, with the "claim:" prefix,
// one of its claims or extended resource requests.
func (v *validator) allocatedResourceName(p, name string, container, extended *jsonv.Value) {
	res := sub(container, "resources")
	if !strings.HasPrefix(name, "claim:") {
		if sub(res, "requests").Get(name) == nil {
			v.invalid(p, name, "must match one of the container's resource requests")
		}
		return
	}
	for _, c := range items(res, "claims") {
		want := "claim:" + str(c, "name")
		if r := str(c, "request"); r != "" {
			want += "/" + r
		}
		if want == name {
			return
		}
	}
	if !extendedRequestAllocated(name, container, extended) {
		v.invalid(p, name, "must match one of the container's resource claims as 'claim:<claimName>/<requestName>' when container.resources.claims[*].request is set or 'claim:<claimName>' when it is empty")
	}
}

// extendedRequestAllocated reports whether "claim:<claim>/<request>"
// names a request of the pod's extended resource claim that is mapped to
// the container for one of its non-zero requests.
func extendedRequestAllocated(name string, container, extended *jsonv.Value) bool {
	if extended == nil {
		return false
	}
	claim, request, ok := strings.Cut(strings.TrimPrefix(name, "claim:"), "/")
	if !ok || claim == "" || request == "" || claim != str(extended, "resourceClaimName") {
		return false
	}
	requests := sub(sub(container, "resources"), "requests")
	for _, m := range items(extended, "requestMappings") {
		if str(m, "containerName") != str(container, "name") || str(m, "requestName") != request {
			continue
		}
		if q, ok := quantityValue(requests.Get(str(m, "resourceName"))); ok && q.Sign() != 0 {
			return true
		}
	}
	return false
}

// noAllocatedResourcesStatus reports each container status at p that
// lists allocated resources (an ephemeral container has none).
func (v *validator) noAllocatedResourcesStatus(p string, statuses []*jsonv.Value) {
	for i, s := range statuses {
		if !empty(s, "allocatedResourcesStatus") {
			v.forbidden(index(p, i)+".allocatedResourcesStatus", "must not be specified in container status")
		}
	}
}
