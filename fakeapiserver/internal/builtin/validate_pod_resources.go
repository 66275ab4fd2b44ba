package builtin

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// podResources checks the pod-level resources of a pod that is not a
// windows pod (windowsPod forbids them there): no claims, the resource
// requirements' rules for cpu, memory and huge pages only, and
// requests and limits that hold what the containers ask for.
func (v *validator) podResources(path string, spec *jsonv.Value) {
	res := present(spec, "resources")
	if res == nil || str(sub(spec, "os"), "name") == "windows" {
		return
	}
	p := path + ".resources"
	if !unset(res, "claims") {
		v.forbidden(p+".claims", "claims may not be set for Resources at pod-level")
	}
	v.requirements(p, res, v.podResourceName)
	v.resourceClaimNames(p+".claims", res, spec)
	v.podResourceConsistency(p, res, spec)
}

// podResourceName checks a pod-level resource name: a standard or
// qualified name, and one of cpu, memory or a huge page size.
func (v *validator) podResourceName(p, name string) {
	if probs := qualifiedNameProblems(name); len(probs) > 0 {
		v.problems(p, name, probs)
		return
	}
	if !strings.Contains(name, "/") && !standardContainerResources[name] && !standardResources[name] && !isHugePages(name) {
		v.invalid(p, name, "must be a standard resource type or fully qualified")
		return
	}
	if name != "cpu" && name != "memory" && !isHugePages(name) {
		v.notSupported(p, name, "cpu", "hugepages-", "memory")
	}
}

// resourceClaimNames checks the claims of resource requirements: each
// names a claim of the pod (and a request of it, a label), none twice.
func (v *validator) resourceClaimNames(path string, res, spec *jsonv.Value) {
	podClaims := map[string]bool{}
	for _, c := range items(spec, "resourceClaims") {
		if n := str(c, "name"); n != "" {
			podClaims[n] = true
		}
	}
	seen := map[string]bool{}
	for i, c := range items(res, "claims") {
		p := index(path, i)
		name := str(c, "name")
		if name == "" {
			v.required(p, "")
			continue
		}
		if seen[name] {
			v.duplicate(p, name)
		} else {
			v.claimRequest(p, c, name, seen)
		}
		if !podClaims[name] {
			detail := "must be one of the names in pod.spec.resourceClaims"
			if len(podClaims) == 0 {
				detail += " which is empty"
			} else {
				detail += ": " + strings.Join(sortedKeys(podClaims), ", ")
			}
			v.add(FieldError{Type: meta.CauseFieldValueNotFound, Field: p, Value: strconv.Quote(name), Detail: detail})
		}
	}
}

// claimRequest checks a claim reference whose claim is not yet named
// alone: its request, and that neither the same request nor (when it
// names none) a request of the same claim came before; it notes the
// reference in seen.
func (v *validator) claimRequest(p string, c *jsonv.Value, name string, seen map[string]bool) {
	k := name
	req := str(c, "request")
	if req != "" {
		v.problems(p+".request", req, validation.LabelProblems(req))
		k += "/" + req
	}
	switch {
	case seen[k]:
		v.duplicate(p, k)
	case req == "":
		for _, s := range sortedKeys(seen) {
			if i := strings.Index(s, "/"); i >= 0 && s[:i] == name {
				v.duplicate(p, name)
			}
		}
	}
	seen[k] = true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// podResourceConsistency checks pod-level requests against the
// containers' aggregate requests, pod-level huge page limits against
// their aggregate limits, and each container's limits against the pod's.
func (v *validator) podResourceConsistency(p string, res, spec *jsonv.Value) {
	reqs := aggregateContainerResources(spec, "requests")
	podReqs := sub(res, "requests")
	for _, name := range sortedQuantityKeys(reqs) {
		if pq, ok := quantityValue(podReqs.Get(name)); ok && reqs[name].value.Cmp(pq) > 0 {
			v.invalid(key(p+".requests", name), shownQuantity(podReqs.Get(name)), "must be greater than or equal to aggregate container requests of "+reqs[name].String())
		}
	}
	lims := aggregateContainerResources(spec, "limits")
	podLims := sub(res, "limits")
	for _, name := range sortedQuantityKeys(lims) {
		if !isHugePages(name) {
			continue
		}
		if pq, ok := quantityValue(podLims.Get(name)); ok && lims[name].value.Cmp(pq) > 0 {
			v.invalid(key(p+".limits", name), shownQuantity(podLims.Get(name)), "must be greater than or equal to aggregate container limits of "+lims[name].String())
		}
	}
	for i, c := range items(spec, "containers") {
		cl := sub(sub(c, "resources"), "limits")
		for j := range cl.Obj {
			m := &cl.Obj[j]
			q, ok1 := quantityValue(&m.Value)
			pq, ok2 := quantityValue(podLims.Get(m.Key))
			if ok1 && ok2 && q.Cmp(pq) > 0 {
				v.invalid(key(index(p+".containers", i), m.Key)+".limits", shownQuantity(&m.Value), "must be less than or equal to pod limits of "+shownQuantity(podLims.Get(m.Key)))
			}
		}
	}
}

// podResourceClaims checks the pod's resourceClaims list: each a named
// label, once, with exactly one of resourceClaimName (a subdomain) and
// resourceClaimTemplateName (a subdomain). A static pod (mirrorPod) may
// have none: each claim is then refused alone, at the empty path (shown "[]").
func (v *validator) podResourceClaims(path string, spec *jsonv.Value, mirrorPod bool) {
	names := map[string]bool{}
	for i, c := range items(spec, "resourceClaims") {
		if mirrorPod {
			v.forbidden("[]", "static pods do not support resource claims")
			continue
		}
		p := index(path, i)
		name := str(c, "name")
		switch {
		case name == "":
			v.required(p+".name", "")
		case names[name]:
			v.duplicate(p+".name", name)
		default:
			v.problems(p+".name", name, validation.LabelProblems(name))
			names[name] = true
		}
		claim, tmpl := c.Get("resourceClaimName"), c.Get("resourceClaimTemplateName")
		hasClaim, hasTmpl := claim != nil && claim.Kind == jsonv.String, tmpl != nil && tmpl.Kind == jsonv.String
		shown := `{"Name":` + jsonString(name) + `,"ResourceClaimName":` + jsonStringOrNull(claim, hasClaim) + `,"ResourceClaimTemplateName":` + jsonStringOrNull(tmpl, hasTmpl) + `}`
		if hasClaim && hasTmpl {
			v.invalidRaw(p, shown, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified")
		}
		if !hasClaim && !hasTmpl {
			v.invalidRaw(p, shown, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
		}
		if hasClaim {
			v.problems(p+".resourceClaimName", claim.Str, validation.SubdomainProblems(claim.Str))
		}
		if hasTmpl {
			v.problems(p+".resourceClaimTemplateName", tmpl.Str, validation.SubdomainProblems(tmpl.Str))
		}
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	return string(jsonv.Marshal(jsonv.NewString(s)))
}

// jsonStringOrNull is a string member as JSON, or null when it is not set.
func jsonStringOrNull(s *jsonv.Value, set bool) string {
	if !set {
		return "null"
	}
	return jsonString(s.Str)
}

// podOverhead checks a pod's overhead as the limits of resource
// requirements.
func (v *validator) podOverhead(path string, spec *jsonv.Value) {
	o := present(spec, "overhead")
	if o == nil {
		return
	}
	limits := jsonv.NewObject()
	limits.Set("limits", *o)
	v.resources(path, &limits)
}
