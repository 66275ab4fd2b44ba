package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// schedulingGates checks a pod's scheduling gates: qualified names,
// none twice.
func (v *validator) schedulingGates(path string, spec *jsonv.Value) {
	seen := map[string]bool{}
	for i, g := range items(spec, "schedulingGates") {
		p := index(path, i)
		name := str(g, "name")
		v.problems(p, name, qualifiedNameProblems(name))
		if seen[name] {
			v.duplicate(p, name)
		}
		seen[name] = true
	}
}

// hostnameOverride checks a pod's hostname override: not with
// setHostnameAsFQDN or the host network, at most 64 bytes, a subdomain.
func (v *validator) hostnameOverride(path string, spec *jsonv.Value) {
	h := spec.Get("hostnameOverride")
	if h == nil || h.Kind != jsonv.String {
		return
	}
	p := path + ".hostnameOverride"
	if isTrue(spec, "setHostnameAsFQDN") {
		v.forbidden(p, "may not be specified when setHostnameAsFQDN is true")
	}
	if isTrue(spec, "hostNetwork") {
		v.forbidden(p, "may not be specified when hostNetwork is true")
	}
	if len(h.Str) > 64 {
		v.tooLong(p, 64)
	}
	v.problems(p, h.Str, validation.SubdomainProblems(h.Str))
}
