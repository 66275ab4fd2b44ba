package builtin

import (
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// The status rules of the core kinds (Pod's are in
// validate_status_pod.go).

// namespaceStatus ties a Namespace's phase to its deletion: Active until
// it is deleted, Terminating after.
func namespaceStatus(v *validator, m *meta.ObjectMeta, obj, _ *jsonv.Value) {
	phase := str(sub(obj, "status"), "phase")
	if m.DeletionTimestamp == nil {
		if phase != "Active" {
			v.invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")
		}
	} else if phase != "Terminating" {
		v.invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")
	}
}

// nodeStatus checks a Node's capacity and allocatable quantities, its
// declared features, and that no address is listed twice (the spec is
// the stored one, already valid). The swap capacity is checked only on
// create, and status.config never is: the write drops it
// (PrepareStatusUpdate), as no stored Node can hold one.
func nodeStatus(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
	status := sub(obj, "status")
	for _, list := range []string{"capacity", "allocatable"} {
		if m := present(status, list); m != nil {
			for i := range m.Obj {
				v.resourceQuantity("status."+list+"."+m.Obj[i].Key, m.Obj[i].Key, &m.Obj[i].Value)
			}
		}
	}
	v.declaredFeatures(status)
	seen := map[[2]string]bool{}
	for i, a := range items(status, "addresses") {
		k := [2]string{str(a, "type"), str(a, "address")}
		if seen[k] {
			v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: index("status.addresses", i),
				Value: `{"Type":` + strconv.Quote(k[0]) + `,"Address":` + strconv.Quote(k[1]) + `}`})
		}
		seen[k] = true
	}
}

// serviceStatus checks a Service's load balancer ingress points: only a
// LoadBalancer has them, and an ip needs an ipMode (VIP by default).
func serviceStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	const p = "status.loadBalancer.ingress"
	ingress := items(sub(sub(obj, "status"), "loadBalancer"), "ingress")
	if str(sub(obj, "spec"), "type") != "LoadBalancer" && len(ingress) > 0 {
		v.forbidden(p, "may only be used when `spec.type` is 'LoadBalancer'")
		return
	}
	v.loadBalancerIngress(ingress, old, true)
}

// ingressStatus checks an Ingress's load balancer ingress points.
func ingressStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	v.loadBalancerIngress(items(sub(sub(obj, "status"), "loadBalancer"), "ingress"), old, false)
}

// loadBalancerIngress checks the ingress points of a status.loadBalancer:
// each ip valid (or already stored), each hostname a DNS name and not an
// IP, and for a Service each ipMode.
func (v *validator) loadBalancerIngress(ingress []*jsonv.Value, old *jsonv.Value, ipMode bool) {
	const p = "status.loadBalancer.ingress"
	var existing []string
	for _, in := range items(sub(sub(old, "status"), "loadBalancer"), "ingress") {
		if ip := str(in, "ip"); ip != "" {
			existing = append(existing, ip)
		}
	}
	for i, in := range ingress {
		ip, ip0 := str(in, "ip"), index(p, i)
		if ip != "" {
			v.legacyIP(ip0+".ip", ip, existing)
		}
		mode := in.Get("ipMode")
		hasMode := mode != nil && mode.Kind == jsonv.String
		switch {
		case !ipMode:
		case !hasMode && ip != "":
			v.required(ip0+".ipMode", "must be specified when `ip` is set")
		case hasMode && ip == "":
			v.forbidden(ip0+".ipMode", "may not be specified when `ip` is not set")
		case hasMode && mode.Str != "VIP" && mode.Str != "Proxy":
			v.notSupported(ip0+".ipMode", mode.Str, "Proxy", "VIP")
		}
		if h := str(in, "hostname"); h != "" {
			v.problems(ip0+".hostname", h, validation.SubdomainProblems(h))
			if _, isIP := sloppyIP(h); isIP {
				v.invalid(ip0+".hostname", h, "must be a DNS name, not an IP address")
			}
		}
	}
}

// legacyIP checks an address of a field older than the strict IP rules;
// a value the stored object already holds is kept as it is.
func (v *validator) legacyIP(p, ip string, existing []string) {
	if slices.Contains(existing, ip) {
		return
	}
	v.problems(p, ip, legacyIPProblems(ip))
}

// pvcStatus checks a claim's capacity and, as the expansion recovery
// rules do, its allocated resources and their resize statuses.
func pvcStatus(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
	status := sub(obj, "status")
	if c := present(status, "capacity"); c != nil {
		for i := range c.Obj {
			v.basicResource(key("status.capacity", c.Obj[i].Key), &c.Obj[i].Value)
		}
	}
	for i, hc := range items(sub(status, "healthStatus"), "healthConditions") {
		if r := str(hc, "reason"); r != "" && !conditionReasonRE.MatchString(r) {
			v.invalid(index("status.healthStatus.healthConditions", i)+".reason", r, validation.RegexMessage("a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
				conditionReasonFmt, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB"))
		}
	}
	if rs := present(status, "allocatedResourceStatuses"); rs != nil {
		for _, mem := range rs.Obj {
			const p = "status.allocatedResourceStatuses"
			v.pvcResourceKey(p, mem.Key)
			if !resizeStatuses[mem.Value.Str] {
				// The real message shows the key, not the status.
				v.notSupported(p, mem.Key, "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending")
			}
		}
	}
	if ar := present(status, "allocatedResources"); ar != nil {
		for i := range ar.Obj {
			const p = "status.allocatedResources"
			name := ar.Obj[i].Key
			if !v.pvcResourceKey(p, name) {
				continue
			}
			before := len(v.errs)
			v.basicResource(key(p, name), &ar.Obj[i].Value)
			if len(v.errs) == before {
				v.resourceQuantity(key(p, name), "storage", &ar.Obj[i].Value)
			}
		}
	}
}

// resizeStatuses are the resize states of a claim's allocated resource.
var resizeStatuses = map[string]bool{
	"ControllerResizeInProgress": true, "ControllerResizeInfeasible": true,
	"NodeResizePending": true, "NodeResizeInProgress": true, "NodeResizeInfeasible": true,
}

// pvcResourceKey checks the name of a claim's allocated resource: a
// qualified name, and storage when it is a native one. It reports whether
// the name passed.
func (v *validator) pvcResourceKey(p, name string) bool {
	if probs := qualifiedNameProblems(name); len(probs) > 0 {
		v.problems(p, name, probs)
		return false
	}
	if (!strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")) && name != "storage" {
		v.notSupported(p, name, "storage")
		return false
	}
	return true
}

// basicResource reports a quantity whose integer value is negative,
// showing that value.
func (v *validator) basicResource(p string, q *jsonv.Value) {
	val, ok := quantityValue(q)
	if !ok {
		return
	}
	// Quantity.Value rounds up.
	n := new(big.Int).Quo(val.Num(), val.Denom())
	if new(big.Rat).SetInt(n).Cmp(val) < 0 {
		n.Add(n, big.NewInt(1))
	}
	if n.Sign() < 0 {
		v.invalidRaw(p, n.String(), "must be a valid resource quantity")
	}
}

// quotaResources are the resource names a quota may count without a
// domain (hugepages besides).
var quotaResources = map[string]bool{
	"cpu": true, "memory": true, "ephemeral-storage": true, "requests.cpu": true, "requests.memory": true,
	"requests.storage": true, "requests.ephemeral-storage": true, "limits.cpu": true, "limits.memory": true,
	"limits.ephemeral-storage": true, "pods": true, "resourcequotas": true, "services": true,
	"replicationcontrollers": true, "secrets": true, "persistentvolumeclaims": true, "configmaps": true,
	"services.nodeports": true, "services.loadbalancers": true,
}

// resourceQuotaStatus checks the names and quantities of a quota's
// status.hard and status.used.
func resourceQuotaStatus(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
	status := sub(obj, "status")
	for _, list := range []string{"hard", "used"} {
		m := present(status, list)
		if m == nil {
			continue
		}
		for i := range m.Obj {
			name, p := m.Obj[i].Key, key("status."+list, m.Obj[i].Key)
			v.quotaResourceName(p, name)
			v.resourceQuantity(p, name, &m.Obj[i].Value)
		}
	}
}

// quotaResourceName checks a resource name a quota counts.
func (v *validator) quotaResourceName(p, name string) {
	probs := qualifiedNameProblems(name)
	v.problems(p, name, probs)
	if strings.Contains(name, "/") {
		return
	}
	hugePages := isHugePages(name) || strings.HasPrefix(name, "requests.hugepages-")
	if len(probs) == 0 && !quotaResources[name] && name != "storage" && !hugePages {
		v.invalid(p, name, "must be a standard resource type or fully qualified")
	}
	if !quotaResources[name] && !hugePages {
		v.invalid(p, name, "must be a standard resource for quota")
	}
}
