package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// What the real Service registry does to a Service's cluster IP fields
// before it allocates anything: it keeps clusterIP and clusterIPs in
// step, carries the allocated ones over an update that leaves them out,
// and settles ipFamilyPolicy and ipFamilies for the cluster's families,
// refusing what the cluster cannot give.

// normalizeClusterIPs keeps clusterIP and clusterIPs of spec in step, as
// the registry does first: a create naming only clusterIP gets it as
// clusterIPs; an update that leaves clusterIPs out keeps the stored ones
// when clusterIP is unchanged, one that clears clusterIP clears the
// unchanged clusterIPs, and one that changes clusterIP alone changes
// clusterIPs with it. oldSpec is nil on a create.
func normalizeClusterIPs(spec, oldSpec *jsonv.Value) {
	ip := str(spec, "clusterIP")
	if oldSpec == nil {
		if ip != "" && empty(spec, "clusterIPs") {
			spec.Set("clusterIPs", stringArray(ip))
		}
		return
	}
	oldIP := str(oldSpec, "clusterIP")
	if !empty(oldSpec, "clusterIPs") && empty(spec, "clusterIPs") && oldIP == ip {
		spec.Set("clusterIPs", oldSpec.Get("clusterIPs").Clone())
	}
	if oldIP == ip {
		return
	}
	same := sameStrings(stringsOf(oldSpec, "clusterIPs"), stringsOf(spec, "clusterIPs"))
	switch {
	case oldIP != "" && ip == "":
		if same {
			spec.Delete("clusterIPs")
		}
	case same:
		spec.Set("clusterIPs", stringArray(ip))
	}
}

// patchAllocatedIPs fills the cluster IPs an update of a Service that
// has them, and keeps needing them, leaves out.
func patchAllocatedIPs(spec, oldSpec *jsonv.Value) {
	if str(spec, "type") == "ExternalName" || str(oldSpec, "type") == "ExternalName" {
		return
	}
	if str(spec, "clusterIP") == "" && str(oldSpec, "clusterIP") != "" {
		spec.Set("clusterIP", jsonv.NewString(str(oldSpec, "clusterIP")))
	}
	if empty(spec, "clusterIPs") && !empty(oldSpec, "clusterIPs") {
		spec.Set("clusterIPs", oldSpec.Get("clusterIPs").Clone())
	}
}

// family is the cluster's one IP family: its service CIDR's.
func (a *ServiceAllocator) family() string {
	if a.cidr.Addr().Is4() {
		return familyIPv4
	}
	return familyIPv6
}

// initFamilies settles ipFamilyPolicy and ipFamilies of a Service spec
// that is not ExternalName, as the registry does on a single-stack
// cluster. An unset policy is the stored one on an update, else
// RequireDualStack for a headless Service without a selector and
// SingleStack for the rest. The cluster IP rules (serviceIPErrors) are
// checked first and their errors returned alone; then a policy other
// than SingleStack may not drop a secondary IP or family (SingleStack
// drops an unchanged one), SingleStack may not come with two IPs or
// families, a family missing for a named IP is the IP's (an IP of a
// family the cluster lacks is refused). A headless Service without a
// selector may name any families (its policy, unless SingleStack, gets it
// both); other Services may not require dual-stack nor name a family the
// cluster lacks, and get the cluster's family by default. oldSpec is nil
// on a create.
func (a *ServiceAllocator) initFamilies(spec, oldSpec *jsonv.Value) []FieldError {
	if str(spec, "type") == "ExternalName" || preferDualStackUnchanged(spec, oldSpec) {
		return nil
	}
	if unset(spec, "ipFamilyPolicy") {
		switch {
		case oldSpec != nil && !unset(oldSpec, "ipFamilyPolicy"):
			spec.Set("ipFamilyPolicy", oldSpec.Get("ipFamilyPolicy").Clone())
		case str(spec, "clusterIP") == "None" && empty(spec, "selector"):
			spec.Set("ipFamilyPolicy", jsonv.NewString(policyRequire))
		default:
			spec.Set("ipFamilyPolicy", jsonv.NewString(policySingle))
		}
	}
	if errs := serviceIPErrors(spec, oldSpec); len(errs) > 0 {
		return errs
	}
	v := &validator{}
	policy := str(spec, "ipFamilyPolicy")
	if oldSpec != nil {
		ips, oldIPs := stringsOf(spec, "clusterIPs"), stringsOf(oldSpec, "clusterIPs")
		families, oldFamilies := stringsOf(spec, "ipFamilies"), stringsOf(oldSpec, "ipFamilies")
		if policy == policySingle {
			if sameStrings(ips, oldIPs) && len(ips) > 1 {
				spec.Set("clusterIPs", stringArray(ips[0]))
			}
			if sameStrings(families, oldFamilies) && len(families) > 1 {
				spec.Set("ipFamilies", stringArray(families[0]))
			}
		} else {
			if len(ips) > 0 && len(ips) < len(oldIPs) {
				v.invalid("spec.ipFamilyPolicy", policy, "must be 'SingleStack' to release the secondary cluster IP")
			}
			if len(families) > 0 && len(families) < len(oldFamilies) {
				v.invalid("spec.ipFamilyPolicy", policy, "must be 'SingleStack' to release the secondary IP family")
			}
		}
	}
	ips, families := stringsOf(spec, "clusterIPs"), stringsOf(spec, "ipFamilies")
	if policy == policySingle {
		if len(ips) == 2 {
			v.invalid("spec.ipFamilyPolicy", policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified")
		}
		if len(families) == 2 {
			v.invalid("spec.ipFamilyPolicy", policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified")
		}
	}
	for i, ip := range ips {
		if ip == "None" {
			break
		}
		if i < len(families) {
			continue
		}
		if f := ipFamily(ip); f != a.family() {
			v.add(invalidList(index("spec.clusterIPs", i), ips, f+" is not configured on this cluster"))
		} else {
			families = append(families, f)
		}
	}
	if len(v.errs) > 0 {
		return v.errs
	}
	if str(spec, "clusterIP") == "None" && empty(spec, "selector") {
		if len(families) == 0 {
			families = []string{a.family()}
		}
		if len(families) < 2 && policy != policySingle {
			families = append(families, otherFamily(families[0]))
		}
		spec.Set("ipFamilies", stringArray(families...))
		return nil
	}
	if policy == policyRequire {
		v.invalid("spec.ipFamilyPolicy", policy, "this cluster is not configured for dual-stack services")
	}
	for i, f := range families {
		if f != a.family() {
			v.invalid(index("spec.ipFamilies", i), f, "not configured on this cluster")
		}
	}
	if len(v.errs) > 0 {
		return v.errs
	}
	if len(families) == 0 {
		families = []string{a.family()}
	}
	spec.Set("ipFamilies", stringArray(families...))
	return nil
}

// preferDualStackUnchanged reports whether an update keeps a
// PreferDualStack Service's type (one with cluster IPs), policy, cluster
// IPs and families: the registry then leaves them all as they are.
func preferDualStackUnchanged(spec, oldSpec *jsonv.Value) bool {
	if oldSpec == nil || unset(spec, "ipFamilyPolicy") {
		return false
	}
	typ := str(spec, "type")
	if typ != str(oldSpec, "type") || (typ != "ClusterIP" && typ != "NodePort" && typ != "LoadBalancer") {
		return false
	}
	if str(spec, "ipFamilyPolicy") != policyPrefer || (!unset(oldSpec, "ipFamilyPolicy") && str(oldSpec, "ipFamilyPolicy") != policyPrefer) {
		return false
	}
	return sameStrings(stringsOf(spec, "clusterIPs"), stringsOf(oldSpec, "clusterIPs")) &&
		sameStrings(stringsOf(spec, "ipFamilies"), stringsOf(oldSpec, "ipFamilies"))
}

// otherFamily returns IPv6 for IPv4 and IPv4 for IPv6.
func otherFamily(f string) string {
	if f == familyIPv4 {
		return familyIPv6
	}
	return familyIPv4
}

// sameStrings reports whether a and b hold the same strings in the same
// order (nil and empty alike).
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
