package builtin

import (
	"fmt"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of the kinds a cluster is made of: Namespaces, Nodes and
// Endpoints. A ServiceAccount has no rules beyond its metadata.

// validateNamespace checks a Namespace's spec finalizers: each a
// qualified name, and one without a domain one of the standard names.
// The real server reports them on the list, not on the item.
func validateNamespace(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	for _, f := range stringsOf(sub(obj, "spec"), "finalizers") {
		v.finalizerName("spec.finalizers", f)
	}
}

// finalizerName checks one finalizer name at field.
func (v *validator) finalizerName(field, f string) {
	v.problems(field, f, qualifiedNameProblems(f))
	if !strings.Contains(f, "/") {
		switch f {
		case "kubernetes", "orphan", "foregroundDeletion":
		default:
			v.invalid(field, f, "name is neither a standard finalizer name nor is it fully qualified")
		}
	}
}

// validateNode checks a Node: its taints (which the real server reports
// under metadata.taints), the quantities of its status, and its pod
// CIDRs (one per IP family).
func validateNode(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	v.nodeAnnotations(m.Annotations)
	spec := sub(obj, "spec")
	v.nodeTaints("metadata.taints", items(spec, "taints"))
	status := sub(obj, "status")
	for _, list := range []string{"capacity", "allocatable"} {
		if m := present(status, list); m != nil {
			for i := range m.Obj {
				v.resourceQuantity("status."+list+"."+m.Obj[i].Key, m.Obj[i].Key, &m.Obj[i].Value)
			}
		}
	}
	v.nodeStatusChecks(status)
	cidrs := stringsOf(spec, "podCIDRs")
	for i, c := range cidrs {
		v.problems(index("spec.podCIDRs", i), c, legacyCIDRProblems(c))
	}
	if len(cidrs) > 1 {
		families := map[int]bool{}
		for i, c := range cidrs {
			f := cidrFamily(c)
			if f == 0 {
				// The real server parses them in turn and stops at the
				// first bad one, naming its index and the nil network
				// the parse left.
				detail := fmt.Sprintf("invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[%d]: <nil> (invalid CIDR address: %s)", i, c)
				v.add(FieldError{Type: apistatus.CauseFieldInternalError, Field: "spec.podCIDRs", Detail: detail})
				break
			}
			families[f] = true
		}
		if len(cidrs) > 2 || len(families) < 2 {
			v.add(invalidList("spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family"))
		}
	}
}

// nodeTaints checks a Node's taints: key, value and effect, and that no
// two share a key and an effect.
func (v *validator) nodeTaints(field string, taints []*jsonv.Value) {
	seen := map[[2]string]bool{}
	for i, t := range taints {
		p := index(field, i)
		k, val, effect := str(t, "key"), str(t, "value"), str(t, "effect")
		v.problems(p+".key", k, qualifiedNameProblems(k))
		if probs := labelValueProblems(val); len(probs) > 0 {
			v.invalid(p+".value", val, strings.Join(probs, ";"))
		}
		switch effect {
		case "NoSchedule", "PreferNoSchedule", "NoExecute":
		case "":
			v.required(p+".effect", "")
		default:
			v.notSupported(p+".effect", effect, "NoSchedule", "PreferNoSchedule", "NoExecute")
		}
		id := [2]string{effect, k}
		if seen[id] {
			v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: p, Value: shownTaint(t), Detail: "taints must be unique by key and effect pair"})
			continue
		}
		seen[id] = true
	}
}

// shownTaint renders a taint as the real server shows its Go struct in a
// message.
func shownTaint(t *jsonv.Value) string {
	return shownStruct(t, [][2]string{{"Key", "key"}, {"Value", "value"}, {"Effect", "effect"}}, [2]string{"TimeAdded", "timeAdded"}, jsonv.String)
}

// shownStruct renders an object as the real server shows its Go struct
// in a message: the string fields (Go name, JSON name) in order, then one
// optional field of kind last, null when it is absent.
func shownStruct(t *jsonv.Value, fields [][2]string, last [2]string, kind jsonv.Kind) string {
	o := jsonv.NewObject()
	for _, k := range fields {
		o.Set(k[0], jsonv.NewString(str(t, k[1])))
	}
	val := jsonv.Value{Kind: jsonv.Null}
	if x := t.Get(last[1]); x != nil && x.Kind == kind {
		val = *x
	}
	o.Set(last[0], val)
	return string(jsonv.Marshal(o))
}

// nodeUpdate allows a Node's pod CIDRs and provider ID to be set once,
// never changed, and its external ID never.
func nodeUpdate(v *validator, obj, old *jsonv.Value) {
	spec, oldSpec := sub(obj, "spec"), sub(old, "spec")
	if oldCIDRs := stringsOf(oldSpec, "podCIDRs"); len(oldCIDRs) > 0 {
		cidrs := stringsOf(spec, "podCIDRs")
		const msg = "node updates may not change podCIDR except from \"\" to valid"
		if len(cidrs) != len(oldCIDRs) {
			v.forbidden("spec.podCIDRs", msg)
		} else {
			for i := range oldCIDRs {
				if cidrs[i] != oldCIDRs[i] {
					v.forbidden("spec.podCIDRs", msg)
				}
			}
		}
	}
	if was := str(oldSpec, "providerID"); was != "" {
		switch now := str(spec, "providerID"); {
		case now == "":
			v.invalidRaw("spec.providerID", "null", "field cannot be cleared once set")
		case now != was:
			v.invalidRaw("spec.providerID", "null", "field cannot be modified once set")
		}
	}
	if str(spec, "externalID") != str(oldSpec, "externalID") {
		v.forbidden("spec.externalID", "may not be updated")
	}
}

// validateEndpoints checks each subset of an Endpoints: it has
// addresses, each a routable IP with a valid hostname and node name, and
// its ports are named (when more than one), numbered and of a protocol.
func validateEndpoints(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	for i, s := range items(obj, "subsets") {
		p := index("subsets", i)
		if empty(s, "addresses") && empty(s, "notReadyAddresses") {
			v.required(p, "must specify `addresses` or `notReadyAddresses`")
		}
		for _, list := range []string{"addresses", "notReadyAddresses"} {
			for j, a := range items(s, list) {
				v.endpointAddress(index(p+"."+list, j), a)
			}
		}
		ports := items(s, "ports")
		for j, port := range ports {
			v.endpointPort(index(p+".ports", j), port, len(ports) > 1)
		}
	}
}

// endpointAddress checks one address of an Endpoints subset.
func (v *validator) endpointAddress(p string, a *jsonv.Value) {
	ip := str(a, "ip")
	v.problems(p+".ip", ip, legacyIPProblems(ip))
	if h := str(a, "hostname"); h != "" {
		v.problems(p+".hostname", h, validation.LabelProblems(h))
	}
	if n := a.Get("nodeName"); n != nil && n.Kind == jsonv.String {
		v.problems(p+".nodeName", n.Str, validation.SubdomainProblems(n.Str))
	}
	v.problems(p+".ip", ip, endpointIPProblems(ip))
}

// endpointIPProblems returns why an address cannot be an endpoint's: not
// an address, or unspecified, loopback or link-local.
func endpointIPProblems(s string) []string {
	a, ok := sloppyIP(s)
	if !ok {
		return []string{"must be a valid IP address"}
	}
	a = a.Unmap()
	var out []string
	if a.IsUnspecified() {
		out = append(out, "may not be unspecified ("+s+")")
	}
	if a.IsLoopback() {
		out = append(out, "may not be in the loopback range (127.0.0.0/8, ::1/128)")
	}
	if a.IsLinkLocalUnicast() {
		out = append(out, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")
	}
	if a.IsLinkLocalMulticast() {
		out = append(out, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
	}
	return out
}

// endpointPort checks one port of an Endpoints subset; named is whether
// the subset has several ports, each of which needs a name.
func (v *validator) endpointPort(p string, port *jsonv.Value, named bool) {
	switch name := str(port, "name"); {
	case name == "" && named:
		v.required(p+".name", "")
	case name != "":
		v.problems(p+".name", name, validation.LabelProblems(name))
	}
	n, _ := integer(port, "port")
	v.portRange(p+".port", n)
	v.protocol(p+".protocol", str(port, "protocol"))
	v.appProtocol(p+".appProtocol", port)
}

// appProtocol checks a port's appProtocol, a pointer in the API types: a
// given empty string is checked, and refused, as any other value.
func (v *validator) appProtocol(field string, port *jsonv.Value) {
	if ap := port.Get("appProtocol"); ap != nil && ap.Kind == jsonv.String {
		v.problems(field, ap.Str, qualifiedNameProblems(ap.Str))
	}
}
