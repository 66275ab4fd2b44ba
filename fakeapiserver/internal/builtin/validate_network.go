package builtin

import (
	"regexp"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of the networking.k8s.io kinds that hold addresses and
// classes: ServiceCIDRs, IPAddresses and IngressClasses.

// httpPathFmt is the characters an HTTP path may hold (RFC 3986).
const httpPathFmt = `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`

var httpPathRE = regexp.MustCompile("^" + httpPathFmt + "$")

// validateServiceCIDR checks a ServiceCIDR's ranges: one or two CIDRs in
// canonical form, one of each IP family.
func validateServiceCIDR(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	const p = "spec.cidrs"
	cidrs := stringsOf(sub(obj, "spec"), "cidrs")
	switch {
	case len(cidrs) == 0:
		v.required(p, "at least one CIDR required")
		return
	case len(cidrs) > 2:
		// The real server shows its Go spec struct.
		v.invalidRaw(p, `{"CIDRs":`+shownList(cidrs)+`}`, "may only hold up to 2 values")
		return
	}
	for i, c := range cidrs {
		v.problems(index(p, i), c, cidrProblems(c))
	}
	if len(cidrs) == 2 && cidrFamily(cidrs[0]) != 0 && cidrFamily(cidrs[0]) == cidrFamily(cidrs[1]) {
		v.add(invalidList(p, cidrs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
	}
}

// validateIPAddress checks an IPAddress: its name is the address in
// canonical form (the registry leaves the name to this check), and it
// names the object it is allocated to.
func validateIPAddress(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	v.problems("metadata.name", m.Name, ipProblems(m.Name))
	ref := present(sub(obj, "spec"), "parentRef")
	const p = "spec.parentRef"
	if ref == nil {
		v.required(p, "")
		return
	}
	if g := str(ref, "group"); g != "" {
		v.problems(p+".group", g, validation.SubdomainProblems(g))
	}
	for _, k := range []string{"resource", "name"} {
		if s := str(ref, k); s == "" {
			v.required(p+"."+k, "")
		} else {
			v.problems(p+"."+k, s, validation.PathSegmentProblems(s))
		}
	}
	if ns := str(ref, "namespace"); ns != "" {
		v.problems(p+".namespace", ns, validation.PathSegmentProblems(ns))
	}
}

// validateIngressClass checks an IngressClass's controller (a
// domain-prefixed path) and its parameters reference.
func validateIngressClass(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	const cp = "spec.controller"
	if controller := str(spec, "controller"); v.requiredWithin(cp, controller, 250) {
		v.domainPrefixedPath(cp, controller)
	}
	params := present(spec, "parameters")
	if params == nil {
		return
	}
	const p = "spec.parameters"
	if g := params.Get("apiGroup"); g != nil && g.Kind == jsonv.String {
		v.problems(p+".apiGroup", g.Str, validation.SubdomainProblems(g.Str))
	}
	for _, k := range []string{"kind", "name"} {
		if s := str(params, k); s == "" {
			v.required(p+"."+k, "")
		} else {
			v.problems(p+"."+k, s, validation.PathSegmentProblems(s))
		}
	}
	scope := params.Get("scope")
	if scope == nil || scope.Kind != jsonv.String {
		v.required(p+".scope", "")
		return
	}
	ns := params.Get("namespace")
	hasNS := ns != nil && ns.Kind == jsonv.String
	switch scope.Str {
	case "Namespace":
		if !hasNS {
			v.required(p+".namespace", "`parameters.scope` is set to 'Namespace'")
		} else {
			v.problems(p+".namespace", ns.Str, validation.LabelProblems(ns.Str))
		}
	case "Cluster":
		if hasNS {
			v.forbidden(p+".namespace", "`parameters.scope` is set to 'Cluster'")
		}
	default:
		v.notSupported(p+".scope", scope.Str, "Cluster", "Namespace")
	}
}

// domainPrefixedPath checks a value such as "acme.io/foo": a subdomain,
// a slash and an HTTP path (an empty value is the caller's to report).
func (v *validator) domainPrefixedPath(field, s string) {
	host, path, ok := strings.Cut(s, "/")
	if !ok || host == "" || path == "" {
		v.invalid(field, s, `must be a domain-prefixed path (such as "acme.io/foo")`)
		return
	}
	v.problems(field, host, validation.SubdomainProblems(host))
	if !httpPathRE.MatchString(path) {
		v.invalid(field, path, "Invalid path (regex used for validation is '"+httpPathFmt+"')")
	}
}
