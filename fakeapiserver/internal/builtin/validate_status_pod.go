package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// A Pod's status writes (what the kubelet and the scheduler send).

// podSystemConditions are the condition types the real validation does
// not check as qualified names.
var podSystemConditions = map[string]bool{"PodScheduled": true, "Ready": true, "Initialized": true}

// podStatusUpdate checks a Pod's new status as the real
// ValidatePodStatusUpdate does for the fields clients commonly write:
// conditions, nominatedNodeName, observedGeneration, qosClass (fixed at
// creation), the state transitions of its containers, resource
// claim statuses (the extended resource claim's too), podIPs and
// hostIPs, and its containers' users and allocated resources' health.
func podStatusUpdate(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	status, oldStatus := sub(obj, "status"), sub(old, "status")
	for i, c := range items(status, "conditions") {
		p := index("status.conditions", i)
		if n, ok := integer(c, "observedGeneration"); ok && n < 0 {
			v.invalidRaw(p+".observedGeneration", strconv.FormatInt(n, 10), "must be a non-negative integer")
		}
		if t := str(c, "type"); !podSystemConditions[t] {
			v.problems(p+".Type", t, qualifiedNameProblems(t))
		}
	}
	nominated := str(status, "nominatedNodeName")
	if nominated != "" && nominated != str(oldStatus, "nominatedNodeName") {
		v.problems("status.nominatedNodeName", nominated, validation.SubdomainProblems(nominated))
		if str(sub(old, "spec"), "nodeName") != "" {
			v.forbidden("status.nominatedNodeName", "may not be set on pods that are already bound to a node")
		}
	}
	if n, ok := integer(status, "observedGeneration"); ok && n < 0 {
		v.invalidRaw("status.observedGeneration", strconv.FormatInt(n, 10), "must be a non-negative integer")
	}
	if q := str(status, "qosClass"); q != str(oldStatus, "qosClass") {
		v.invalid("status.qosClass", q, "field is immutable")
	}
	for _, l := range [][2]string{{"containerStatuses", "containers"}, {"initContainerStatuses", "initContainers"}, {"ephemeralContainerStatuses", "ephemeralContainers"}} {
		v.containerTransitions("status."+l[0], items(status, l[0]), items(oldStatus, l[0]), sub(obj, "spec"), l[1])
	}
	spec := sub(obj, "spec")
	v.podClaimStatuses(items(status, "resourceClaimStatuses"), items(spec, "resourceClaims"))
	v.extendedClaimStatus(status, spec)
	v.podIPs(status, oldStatus)
	v.hostIPs(status, oldStatus)
	for _, l := range []string{"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"} {
		v.containerUsers("status."+l, items(status, l), spec)
	}
	v.allocatedResourcesStatus("status.containerStatuses", items(status, "containerStatuses"), spec, status, "containers")
	v.allocatedResourcesStatus("status.initContainerStatuses", items(status, "initContainerStatuses"), spec, status, "initContainers")
	v.noAllocatedResourcesStatus("status.ephemeralContainerStatuses", items(status, "ephemeralContainerStatuses"))
}

// podClaimStatuses checks that each claim status names one of the pod's
// claims, once, and that the claim it gives is a valid name.
func (v *validator) podClaimStatuses(statuses, claims []*jsonv.Value) {
	names := map[string]bool{}
	for _, c := range claims {
		names[str(c, "name")] = true
	}
	seen := map[string]bool{}
	for i, s := range statuses {
		p := index("status.resourceClaimStatuses", i) + ".name"
		name := str(s, "name")
		if !names[name] {
			v.invalid(p, name, "must match the name of an entry in `spec.resourceClaims`")
		}
		if seen[name] {
			v.duplicate(p, name)
		}
		seen[name] = true
		if c := s.Get("resourceClaimName"); c != nil && c.Kind == jsonv.String {
			v.problems(index("status.resourceClaimStatuses", i)+".resourceClaimName", c.Str, validation.SubdomainProblems(c.Str))
		}
	}
}

// ipList reads the ip members of a list of {ip} objects.
func ipList(status *jsonv.Value, k string) []string {
	var out []string
	for _, x := range items(status, k) {
		out = append(out, str(x, "ip"))
	}
	return out
}

// shownIPs renders a list of {ip} objects as the real server shows the Go
// structs.
func shownIPs(ips []string) string {
	s := "["
	for i, ip := range ips {
		if i > 0 {
			s += ","
		}
		s += `{"IP":` + strconv.Quote(ip) + `}`
	}
	return s + "]"
}

// ipFamilies checks that a list of addresses holds at most one of each
// family (it stays quiet when one does not parse; that is reported
// apart).
func (v *validator) ipFamilies(p string, ips []string) {
	if len(ips) < 2 {
		return
	}
	v4 := 0
	for _, ip := range ips {
		a, ok := sloppyIP(ip)
		if !ok {
			return
		}
		if a.Unmap().Is4() {
			v4++
		}
	}
	if len(ips) > 2 || v4 != 1 {
		v.invalidRaw(p, shownIPs(ips), "may specify no more than one IP for each IP family")
	}
}

func (v *validator) podIPs(status, oldStatus *jsonv.Value) {
	ips, existing := ipList(status, "podIPs"), ipList(oldStatus, "podIPs")
	for i, ip := range ips {
		v.legacyIP(index("status.podIPs", i), ip, existing)
	}
	v.ipFamilies("status.podIPs", ips)
	podIP := str(status, "podIP")
	switch {
	case (podIP != "") != (len(ips) > 0):
		v.invalidRaw("status.podIPs", shownIPs(ips), "podIP and podIPs must either both be set or both be unset")
	case len(ips) > 0 && podIP != ips[0]:
		v.invalid("status.podIPs[0].ip", ips[0], "must be equal to `podIP`")
	}
}

func (v *validator) hostIPs(status, oldStatus *jsonv.Value) {
	ips := ipList(status, "hostIPs")
	if len(ips) == 0 {
		return
	}
	if str(status, "hostIP") != ips[0] {
		v.invalid("status.hostIPs[0].ip", ips[0], "must be equal to `hostIP`")
	}
	existing := ipList(oldStatus, "hostIPs")
	for i, ip := range ips {
		v.legacyIP(index("status.hostIPs", i), ip, existing)
	}
	v.ipFamilies("status.hostIPs", ips)
}

// preparePodStatus keeps what a Pod's status write leaves out from the
// stored status: the qosClass, the resource claim statuses, and the
// observed generations of the pod and of each condition (matched by type
// in order); then it drops the fields of gates that are off
// (dropGatedPodStatus).
func preparePodStatus(status, old *jsonv.Value) {
	if status == nil {
		return
	}
	if str(status, "qosClass") == "" && str(old, "qosClass") != "" {
		status.Set("qosClass", jsonv.NewString(str(old, "qosClass")))
	}
	for _, k := range []string{"resourceClaimStatuses", "extendedResourceClaimStatus", "nodeAllocatableResourceClaimStatuses"} {
		if unset(status, k) && !unset(old, k) {
			status.Set(k, old.Get(k).Clone())
		}
	}
	if n, _ := integer(status, "observedGeneration"); n == 0 {
		if was, ok := integer(old, "observedGeneration"); ok && was != 0 {
			status.Set("observedGeneration", number(was))
		}
	}
	oldGens := map[string][]int64{}
	for _, c := range items(old, "conditions") {
		n, _ := integer(c, "observedGeneration")
		oldGens[str(c, "type")] = append(oldGens[str(c, "type")], n)
	}
	for _, c := range items(status, "conditions") {
		t := str(c, "type")
		var was int64
		if gens := oldGens[t]; len(gens) > 0 {
			was, oldGens[t] = gens[0], gens[1:]
		}
		if n, _ := integer(c, "observedGeneration"); n == 0 && was != 0 {
			c.Set("observedGeneration", number(was))
		}
	}
	dropGatedPodStatus(status, old)
}
