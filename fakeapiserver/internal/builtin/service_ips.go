package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// The rules that tie a Service's clusterIP, clusterIPs, ipFamilies and
// ipFamilyPolicy together, as the real server's validation states them.
// The registry runs the same rules before it allocates anything
// (ServiceAllocator), so a Service that breaks them gets these errors
// alone; validation runs them again on the allocated Service.

// Values of a Service's ipFamilies and ipFamilyPolicy.
const (
	familyIPv4 = "IPv4"
	familyIPv6 = "IPv6"

	policySingle  = "SingleStack"
	policyPrefer  = "PreferDualStack"
	policyRequire = "RequireDualStack"
)

// serviceIPErrors checks the cluster IP fields of a Service's spec that
// is not ExternalName: clusterIPs[0] matches clusterIP, each family and
// the policy is a known one with no family twice, each cluster IP is an
// address ("None" only alone; one stored in oldSpec only needs to
// parse), at most one per family and two in all, each of the family
// ipFamilies names at its index. An invalid address stops the checks of
// the list as a whole. oldSpec is nil on a create.
func serviceIPErrors(spec, oldSpec *jsonv.Value) []FieldError {
	v := &validator{}
	v.serviceIPs(spec, oldSpec)
	return v.errs
}

// serviceIPs adds serviceIPErrors's errors to v.
func (v *validator) serviceIPs(spec, oldSpec *jsonv.Value) {
	if str(spec, "type") == "ExternalName" {
		return
	}
	ips := stringsOf(spec, "clusterIPs")
	if str(spec, "clusterIP") != "" {
		if len(ips) == 0 {
			v.required("spec.clusterIPs", "")
		} else if ips[0] != str(spec, "clusterIP") {
			v.add(invalidList("spec.clusterIPs", ips, "first value must match `clusterIP`"))
		}
	} else if len(ips) > 0 {
		v.add(invalidList("spec.clusterIPs", ips, "must be empty when `clusterIP` is not specified"))
	}

	families := stringsOf(spec, "ipFamilies")
	seen := map[string]bool{}
	for i, f := range families {
		if f != familyIPv4 && f != familyIPv6 {
			v.notSupported(index("spec.ipFamilies", i), f, familyIPv4, familyIPv6)
		}
		if seen[f] {
			v.duplicate(index("spec.ipFamilies", i), f)
		}
		seen[f] = true
	}
	if !unset(spec, "ipFamilyPolicy") {
		switch p := str(spec, "ipFamilyPolicy"); p {
		case policySingle, policyPrefer, policyRequire:
		default:
			v.notSupported("spec.ipFamilyPolicy", p, policyPrefer, policyRequire, policySingle)
		}
	}

	old := map[string]bool{}
	for _, ip := range stringsOf(oldSpec, "clusterIPs") {
		old[ip] = true
	}
	badIPs := false
	for i, ip := range ips {
		if i == 0 && ip == "None" {
			if len(ips) > 1 {
				badIPs = true
				v.add(invalidList("spec.clusterIPs", ips, "'None' must be the first and only value"))
			}
			continue
		}
		if _, ok := sloppyIP(ip); ok && old[ip] {
			// A stored address is held to the rules it was stored under.
			continue
		}
		for _, p := range legacyIPProblems(ip) {
			badIPs = true
			v.invalid(index("spec.clusterIPs", i), ip, p)
		}
	}
	if len(ips) > 2 {
		v.add(invalidList("spec.clusterIPs", ips, "may only hold up to 2 values"))
	}
	if badIPs {
		return
	}
	if len(ips) > 1 && !dualStackIPs(ips) {
		v.add(invalidList("spec.clusterIPs", ips, "may specify no more than one IP for each IP family"))
	}
	if !headlessSpec(spec) {
		for i, ip := range ips {
			if i >= len(families) {
				break
			}
			v6 := ipFamily(ip) == familyIPv6
			if families[i] == familyIPv4 && v6 {
				v.invalid(index("spec.clusterIPs", i), ip, "expected an IPv4 value as indicated by `ipFamilies["+strconv.Itoa(i)+"]`")
			}
			if families[i] == familyIPv6 && !v6 {
				v.invalid(index("spec.clusterIPs", i), ip, "expected an IPv6 value as indicated by `ipFamilies["+strconv.Itoa(i)+"]`")
			}
		}
	}
}

// serviceTypeIPs checks the cluster IP fields against the type: a
// NodePort or LoadBalancer Service is not headless, an ExternalName one
// has no cluster IPs, families or policy.
func (v *validator) serviceTypeIPs(spec *jsonv.Value) {
	switch typ := str(spec, "type"); typ {
	case "LoadBalancer", "NodePort":
		if headlessSpec(spec) {
			v.invalid("spec.clusterIPs[0]", "None", "may not be set to 'None' for "+typ+" services")
		}
	case "ExternalName":
		if !empty(spec, "clusterIPs") {
			v.forbidden("spec.clusterIPs", "may not be set for ExternalName services")
		}
		if !empty(spec, "ipFamilies") {
			v.forbidden("spec.ipFamilies", "may not be set for ExternalName services")
		}
		if !unset(spec, "ipFamilyPolicy") {
			v.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services")
		}
	}
}

// serviceIPsUpdate checks how an update changes the cluster IPs and
// families of a Service that is not ExternalName before or after: the
// primary ones never change (a headless Service may change its
// families, and one that stays headless its IPs), a secondary one may be
// added, and one may be released only with the SingleStack policy.
func (v *validator) serviceIPsUpdate(spec, oldSpec *jsonv.Value) {
	if str(spec, "type") == "ExternalName" || str(oldSpec, "type") == "ExternalName" {
		return
	}
	ips, oldIPs := stringsOf(spec, "clusterIPs"), stringsOf(oldSpec, "clusterIPs")
	headless, oldHeadless := headlessSpec(spec), headlessSpec(oldSpec)
	policy := str(spec, "ipFamilyPolicy")
	if !headless || !oldHeadless {
		switch {
		case len(oldIPs) == len(ips):
			for i, ip := range oldIPs {
				if ip != ips[i] {
					v.add(invalidList(index("spec.clusterIPs", i), ips, "may not change once set"))
				}
			}
		case len(oldIPs) > len(ips):
			if len(ips) == 0 {
				v.add(invalidListOrNull("spec.clusterIPs[0]", ips, "primary clusterIP can not be unset"))
			}
			if len(ips) > 0 && ips[0] != oldIPs[0] {
				v.add(invalidList("spec.clusterIPs[0]", ips, "may not change once set"))
			}
			if len(ips) == 1 && policy != policySingle {
				v.add(invalidValue("spec.ipFamilyPolicy", policy, "must be set to 'SingleStack' when releasing the secondary clusterIP"))
			}
		default:
			if len(oldIPs) > 0 && ips[0] != oldIPs[0] {
				v.add(invalidList("spec.clusterIPs[0]", ips, "may not change once set"))
			}
		}
	}

	if headless || oldHeadless {
		// Changing to or from headless, or staying headless, frees the
		// families.
		return
	}
	families, oldFamilies := stringsOf(spec, "ipFamilies"), stringsOf(oldSpec, "ipFamilies")
	// The real server reports every changed family at index 0, and a
	// changed primary family of a longer or shorter list with the
	// cluster IPs as its value.
	switch {
	case len(oldFamilies) == len(families):
		for i, f := range oldFamilies {
			if f != families[i] {
				v.add(invalidList("spec.ipFamilies[0]", families, "may not change once set"))
			}
		}
	case len(oldFamilies) > len(families):
		if len(ips) == 0 {
			v.add(invalidListOrNull("spec.ipFamilies[0]", families, "primary ipFamily can not be unset"))
		}
		if len(families) > 0 && families[0] != oldFamilies[0] {
			v.add(invalidListOrNull("spec.ipFamilies[0]", ips, "may not change once set"))
		}
		if len(families) == 1 && policy != policySingle {
			v.add(invalidValue("spec.ipFamilyPolicy", policy, "must be set to 'SingleStack' when releasing the secondary ipFamily"))
		}
	default:
		if len(oldFamilies) > 0 && len(families) > 0 && families[0] != oldFamilies[0] {
			v.add(invalidListOrNull("spec.ipFamilies[0]", ips, "may not change once set"))
		}
	}
}

// invalidListOrNull is invalidList showing an absent list as null, as the
// real server shows a nil Go slice.
func invalidListOrNull(field string, values []string, detail string) FieldError {
	if values == nil {
		return FieldError{Type: meta.CauseFieldValueInvalid, Field: field, Value: "null", Detail: detail}
	}
	return invalidList(field, values, detail)
}

// headlessSpec reports whether a Service spec is headless: its cluster
// IPs are just "None".
func headlessSpec(spec *jsonv.Value) bool {
	ips := stringsOf(spec, "clusterIPs")
	return len(ips) == 1 && ips[0] == "None"
}

// ipFamily returns IPv4 or IPv6 for an address the lenient parser reads,
// and "" otherwise.
func ipFamily(ip string) string {
	a, ok := sloppyIP(ip)
	switch {
	case !ok:
		return ""
	case a.Is4() || a.Is4In6():
		return familyIPv4
	default:
		return familyIPv6
	}
}

// dualStackIPs reports whether ips holds addresses of both families.
func dualStackIPs(ips []string) bool {
	v4, v6 := 0, 0
	for _, ip := range ips {
		switch ipFamily(ip) {
		case familyIPv4:
			v4++
		case familyIPv6:
			v6++
		}
	}
	return v4 > 0 && v6 > 0
}
