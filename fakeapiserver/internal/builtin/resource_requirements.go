package builtin

import (
	"math/big"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// A container's resource requirements (also a RuntimeClass's overhead)
// as the real validator checks them: each resource's name and quantity,
// then each request against its limit.

// standardContainerResources are the resources without a domain a
// container may ask for (hugepages-<size> besides).
var standardContainerResources = map[string]bool{"cpu": true, "memory": true, "ephemeral-storage": true}

// standardResources are the other resource names without a domain the
// real server knows (quota names).
var standardResources = map[string]bool{
	"requests.cpu": true, "requests.memory": true, "requests.ephemeral-storage": true, "requests.storage": true,
	"limits.cpu": true, "limits.memory": true, "limits.ephemeral-storage": true,
	"pods": true, "services": true, "replicationcontrollers": true, "resourcequotas": true, "secrets": true,
	"persistentvolumeclaims": true, "configmaps": true, "services.nodeports": true, "services.loadbalancers": true,
}

func isHugePages(name string) bool { return strings.HasPrefix(name, "hugepages-") }

// isNativeResource reports a resource name without a domain or in the
// kubernetes.io domain.
func isNativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

// isExtendedResource reports a resource name of a device plugin's kind:
// outside kubernetes.io, and a qualified name once prefixed for a quota.
func isExtendedResource(name string) bool {
	if isNativeResource(name) || strings.HasPrefix(name, "requests.") {
		return false
	}
	return len(qualifiedNameProblems("requests."+name)) == 0
}

// containerResourceName checks one resource name of a container's list.
func (v *validator) containerResourceName(p, name string) {
	if probs := qualifiedNameProblems(name); len(probs) > 0 {
		v.problems(p, name, probs)
	} else if !strings.Contains(name, "/") && !standardContainerResources[name] && !standardResources[name] && !isHugePages(name) {
		v.invalid(p, name, "must be a standard resource type or fully qualified")
	}
	if !strings.Contains(name, "/") {
		if !standardContainerResources[name] && !isHugePages(name) {
			v.invalid(p, name, "must be a standard resource for containers")
		}
	} else if !isNativeResource(name) && !isExtendedResource(name) {
		v.invalid(p, name, "doesn't follow extended resource name standard")
	}
}

// integerResources are the resources without a domain counted in whole
// units.
var integerResources = map[string]bool{
	"pods": true, "resourcequotas": true, "services": true, "replicationcontrollers": true, "secrets": true,
	"configmaps": true, "persistentvolumeclaims": true, "services.nodeports": true, "services.loadbalancers": true,
}

// resourceQuantity checks a quantity of a container's resources or a
// Node's capacity: not negative, whole for a resource counted in units
// (an extended resource, pods, ...).
func (v *validator) resourceQuantity(p, name string, q *jsonv.Value) {
	val, ok := quantityValue(q)
	if !ok {
		return
	}
	if val.Sign() < 0 {
		v.invalid(p, shownQuantity(q), "must be greater than or equal to 0")
	}
	if (integerResources[name] || isExtendedResource(name)) && !val.IsInt() {
		v.invalid(p, shownQuantity(q), "must be an integer")
	}
}

// shownQuantity is a quantity as the real server shows it in a message:
// in canonical form.
func shownQuantity(q *jsonv.Value) string {
	if c, ok := canonicalQuantity(q.Str, false); ok {
		return c
	}
	return q.Str
}

// resources checks a container's resource requirements: the names and
// quantities of its limits and requests, and that a request stays within
// its limit (equals it for a resource that cannot be overcommitted).
func (v *validator) resources(path string, res *jsonv.Value) {
	v.requirements(path, res, v.containerResourceName)
}

// requirements checks resource requirements as resources does, with
// name checking each resource name.
func (v *validator) requirements(path string, res *jsonv.Value, name func(p, name string)) {
	if res == nil {
		return
	}
	reqs, lims := present(res, "requests"), present(res, "limits")
	cpuOrMemory, huge := false, false
	if lims != nil {
		for i := range lims.Obj {
			v.resourceEntry(path+".limits", &lims.Obj[i], name, &huge, &cpuOrMemory)
			v.hugePageValue(key(path+".limits", lims.Obj[i].Key), &lims.Obj[i])
		}
	}
	if reqs == nil {
		v.hugePagesAlone(path, huge, cpuOrMemory)
		return
	}
	for i := range reqs.Obj {
		m := &reqs.Obj[i]
		v.resourceEntry(path+".requests", m, name, &huge, &cpuOrMemory)
		overcommit := isNativeResource(m.Key) && !isHugePages(m.Key)
		var lim *jsonv.Value
		if lims != nil {
			lim = lims.Get(m.Key)
		}
		if lim == nil {
			if !overcommit {
				v.required(path+".limits", "Limit must be set for non overcommitable resources")
			}
		} else {
			v.requestWithinLimit(path+".requests", m, lim, overcommit)
		}
		v.hugePageValue(key(path+".requests", m.Key), m)
	}
	v.hugePagesAlone(path, huge, cpuOrMemory)
}

// requestWithinLimit checks a request against its limit: not above it,
// and equal to it for a resource that cannot be overcommitted.
func (v *validator) requestWithinLimit(field string, m *jsonv.Member, lim *jsonv.Value, overcommit bool) {
	rq, ok1 := quantityValue(&m.Value)
	lq, ok2 := quantityValue(lim)
	if !ok1 || !ok2 {
		return
	}
	switch {
	case rq.Cmp(lq) != 0 && !overcommit:
		v.invalid(field, shownQuantity(&m.Value), "must be equal to "+m.Key+" limit of "+shownQuantity(lim))
	case rq.Cmp(lq) > 0:
		v.invalid(field, shownQuantity(&m.Value), "must be less than or equal to "+m.Key+" limit of "+shownQuantity(lim))
	}
}

// hugePageValue checks a quantity of huge pages: a whole number of pages
// of the size its name gives (a name whose size is not a whole number
// of bytes above zero fits no quantity). The quantity is taken in whole
// bytes, rounded up.
func (v *validator) hugePageValue(field string, m *jsonv.Member) {
	if !isHugePages(m.Key) {
		return
	}
	q, ok := quantityValue(&m.Value)
	if !ok {
		return
	}
	size := jsonv.NewString(strings.TrimPrefix(m.Key, "hugepages-"))
	page, ok := quantityValue(&size)
	if ok && page.Sign() > 0 && page.IsInt() && new(big.Int).Rem(ceilRat(q), page.Num()).Sign() == 0 {
		return
	}
	shown := shownQuantity(&m.Value)
	v.invalid(field, shown, shown+" is not positive integer multiple of "+m.Key)
}

// ceilRat is the smallest integer not below r.
func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// resourceEntry checks one entry of a list of limits or requests and
// notes whether it asks for huge pages, cpu or memory.
func (v *validator) resourceEntry(list string, m *jsonv.Member, name func(p, name string), huge, cpuOrMemory *bool) {
	p := key(list, m.Key)
	name(p, m.Key)
	v.resourceQuantity(p, m.Key, &m.Value)
	*huge = *huge || isHugePages(m.Key)
	*cpuOrMemory = *cpuOrMemory || m.Key == "cpu" || m.Key == "memory"
}

// hugePagesAlone reports huge pages asked for without cpu or memory.
func (v *validator) hugePagesAlone(path string, huge, cpuOrMemory bool) {
	if huge && !cpuOrMemory {
		v.forbidden(path, "HugePages require cpu or memory")
	}
}
