package builtin

import (
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of RBAC, Leases, PriorityClasses, HPAs, PDBs, Ingresses,
// NetworkPolicies, StorageClasses, EndpointSlices and the CSI kinds
// (CSIDriver, CSINode, VolumeAttachment, CSIStorageCapacity).

func validateRole(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.policyRules(obj, true)
}

// validateClusterRole checks a ClusterRole's rules and that an
// aggregation rule has selectors (the selectors themselves are not
// checked).
func validateClusterRole(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.policyRules(obj, false)
	if agg := present(obj, "aggregationRule"); agg != nil && arrayLen(agg, "clusterRoleSelectors") == 0 {
		v.required("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil")
	}
}

// policyRules checks a role's rules as the real validator does: a rule
// of non-resource URLs (not in a namespaced role) names no API groups,
// resources or resource names; any other names at least one API group
// and resource (an empty list names none); every rule has verbs, whose
// error the real server lists last.
func (v *validator) policyRules(obj *jsonv.Value, namespaced bool) {
	for i, r := range items(obj, "rules") {
		p := index("rules", i)
		if arrayLen(r, "nonResourceURLs") > 0 {
			urls := string(jsonv.Marshal(*r.Get("nonResourceURLs")))
			if namespaced {
				v.invalidRaw(p+".nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs")
			}
			if arrayLen(r, "apiGroups") > 0 || arrayLen(r, "resources") > 0 || arrayLen(r, "resourceNames") > 0 {
				v.invalidRaw(p+".nonResourceURLs", urls, "rules cannot apply to both regular resources and non-resource URLs")
			}
		} else {
			if arrayLen(r, "apiGroups") == 0 {
				v.required(p+".apiGroups", "resource rules must supply at least one api group")
			}
			if arrayLen(r, "resources") == 0 {
				v.required(p+".resources", "resource rules must supply at least one resource")
			}
		}
		if arrayLen(r, "verbs") == 0 {
			v.required(p+".verbs", "")
		}
	}
}

func validateRoleBinding(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	ref := sub(obj, "roleRef")
	if g := str(ref, "apiGroup"); g != "rbac.authorization.k8s.io" {
		v.notSupported("roleRef.apiGroup", g, "rbac.authorization.k8s.io")
	}
	cluster := m.Namespace == ""
	switch k := str(ref, "kind"); {
	case k == "ClusterRole", k == "Role" && !cluster:
	case cluster:
		v.notSupported("roleRef.kind", k, "ClusterRole")
	default:
		v.notSupported("roleRef.kind", k, "Role", "ClusterRole")
	}
	for i, s := range items(obj, "subjects") {
		p := index("subjects", i)
		name := str(s, "name")
		if name == "" {
			v.required(p+".name", "")
		}
		switch k := str(s, "kind"); k {
		case "ServiceAccount":
			if name != "" {
				v.problems(p+".name", name, validation.SubdomainProblems(name))
			}
			if g := str(s, "apiGroup"); g != "" {
				v.notSupported(p+".apiGroup", g, "")
			}
			if cluster && str(s, "namespace") == "" {
				v.required(p+".namespace", "")
			}
		case "User", "Group":
			if g := str(s, "apiGroup"); g != "rbac.authorization.k8s.io" {
				v.notSupported(p+".apiGroup", g, "rbac.authorization.k8s.io")
			}
		default:
			v.notSupported(p+".kind", k, "ServiceAccount", "User", "Group")
		}
	}
	if str(ref, "name") == "" {
		v.required("roleRef.name", "")
	}
}

func validateLease(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	if n, ok := integer(spec, "leaseDurationSeconds"); ok && n <= 0 {
		v.invalidRaw("spec.leaseDurationSeconds", strconv.FormatInt(n, 10), "must be greater than 0")
	}
	v.nonNegative(spec, "leaseTransitions", "spec.leaseTransitions")
}

// systemPriorityClasses are the reserved classes and their values.
var systemPriorityClasses = map[string]int64{
	"system-node-critical":    2000001000,
	"system-cluster-critical": 2000000000,
}

func validatePriorityClass(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	if strings.HasPrefix(m.Name, "system-") {
		if want, ok := systemPriorityClasses[m.Name]; !ok {
			v.forbidden("metadata.name", "priority class names with 'system-' prefix are reserved for system use only. error: "+m.Name+" is not a known system priority class")
		} else if got, _ := integer(obj, "value"); got != want {
			v.forbidden("metadata.name", "priority class names with 'system-' prefix are reserved for system use only. error: value of "+m.Name+" PriorityClass must be "+strconv.FormatInt(want, 10))
		}
		return
	}
	if n, _ := integer(obj, "value"); n > 1000000000 {
		v.forbidden("value", "maximum allowed value of a user defined priority is 1000000000")
	}
	switch p := str(obj, "preemptionPolicy"); p {
	case "", "PreemptLowerPriority", "Never":
	default:
		v.notSupported("preemptionPolicy", p, "Never", "PreemptLowerPriority")
	}
}

func validateHPA(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	minR, hasMin := integer(spec, "minReplicas")
	maxR, _ := integer(spec, "maxReplicas")
	if hasMin && minR < 1 {
		v.invalidRaw("spec.minReplicas", strconv.FormatInt(minR, 10), "must be greater than or equal to 1")
	}
	if maxR < 1 {
		v.invalidRaw("spec.maxReplicas", strconv.FormatInt(maxR, 10), "must be greater than 0")
	}
	if hasMin && maxR < minR {
		v.invalidRaw("spec.maxReplicas", strconv.FormatInt(maxR, 10), "must be greater than or equal to `minReplicas`")
	}
	ref := sub(spec, "scaleTargetRef")
	if str(ref, "kind") == "" {
		v.required("spec.scaleTargetRef.kind", "")
	}
	if str(ref, "name") == "" {
		v.required("spec.scaleTargetRef.name", "")
	}
	if av := str(ref, "apiVersion"); !strings.Contains(av, "/") && av != "v1" {
		v.invalid("spec.scaleTargetRef.apiVersion", av, "apiVersion must specify API group")
	}
	v.hpaBehavior(spec)
}

func validatePDB(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	minA, maxU := spec.Get("minAvailable"), spec.Get("maxUnavailable")
	if minA != nil && minA.Kind != jsonv.Null && maxU != nil && maxU.Kind != jsonv.Null {
		sel := "null"
		if s := present(spec, "selector"); s != nil {
			sel = string(jsonv.Marshal(*s))
		}
		policy := "null"
		if p := str(spec, "unhealthyPodEvictionPolicy"); p != "" {
			policy = strconv.Quote(p)
		}
		v.invalidRaw("spec", `{"MinAvailable":`+shownIntOrString(minA)+`,"Selector":`+sel+`,"MaxUnavailable":`+shownIntOrString(maxU)+`,"UnhealthyPodEvictionPolicy":`+policy+`}`, "minAvailable and maxUnavailable cannot be both set")
	}
	v.intOrPercent("spec.minAvailable", minA)
	v.intOrPercent("spec.maxUnavailable", maxU)
	v.selector("spec.selector", readSelector(spec, "selector"))
}

func validateIngress(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	if len(items(spec, "rules")) == 0 && present(spec, "defaultBackend") == nil {
		// The real server shows the rules it was given: [] when sent
		// empty, null when left out.
		shown := "null"
		if r := spec.Get("rules"); r != nil && r.Kind == jsonv.Array {
			shown = "[]"
		}
		v.invalidRaw("spec", shown, "either `defaultBackend` or `rules` must be specified")
	}
	for i, r := range items(spec, "rules") {
		p := index("spec.rules", i)
		if h := str(r, "host"); h != "" {
			check := h
			if strings.HasPrefix(h, "*.") {
				check = h[2:]
			}
			v.problems(p+".host", h, validation.SubdomainProblems(check))
		}
		http := present(r, "http")
		if http == nil {
			continue
		}
		if len(items(http, "paths")) == 0 {
			v.required(p+".http.paths", "")
		}
		for j, path := range items(http, "paths") {
			pp := index(p+".http.paths", j)
			switch pt := str(path, "pathType"); pt {
			case "":
				v.required(pp+".pathType", "pathType must be specified")
			case "Exact", "Prefix":
				if pv := str(path, "path"); !strings.HasPrefix(pv, "/") {
					v.invalid(pp+".path", pv, "must be an absolute path")
				}
			case "ImplementationSpecific":
			default:
				v.notSupported(pp+".pathType", pt, "Exact", "ImplementationSpecific", "Prefix")
			}
		}
	}
}

func validateNetworkPolicy(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	v.selector("spec.podSelector", readSelector(spec, "podSelector"))
	for _, dir := range []string{"ingress", "egress"} {
		for i, rule := range items(spec, dir) {
			for j, port := range items(rule, "ports") {
				pp := index(index("spec."+dir, i)+".ports", j)
				if proto := str(port, "protocol"); proto != "" {
					v.protocol(pp+".protocol", proto)
				}
				if pv := port.Get("port"); pv != nil && pv.Kind == jsonv.Number {
					n, _ := strconv.ParseInt(pv.Str, 10, 64)
					v.portRange(pp+".port", n)
				} else if pv != nil && pv.Kind == jsonv.String {
					v.problems(pp+".port", pv.Str, portNameProblems(pv.Str))
				}
			}
		}
	}
	if pt := spec.Get("policyTypes"); pt != nil && pt.Kind == jsonv.Array {
		for i, t := range pt.Arr {
			if t.Str != "Ingress" && t.Str != "Egress" {
				v.notSupported(index("spec.policyTypes", i), t.Str, "Ingress", "Egress")
			}
		}
		if len(pt.Arr) > 2 {
			v.invalidRaw("spec.policyTypes", string(jsonv.Marshal(*pt)), "may not specify more than two policyTypes")
		}
	}
}

func validateStorageClass(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	switch rp := str(obj, "reclaimPolicy"); rp {
	case "", "Delete", "Retain":
	default:
		v.notSupported("reclaimPolicy", rp, "Delete", "Retain")
	}
	v.provisioner("provisioner", str(obj, "provisioner"))
	v.classParameters("parameters", present(obj, "parameters"), true)
	switch m := str(obj, "volumeBindingMode"); m {
	case "", "Immediate", "WaitForFirstConsumer":
	default:
		v.notSupported("volumeBindingMode", m, "Immediate", "WaitForFirstConsumer")
	}
	v.allowedTopologies(obj)
}

func validateEndpointSlice(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	at := str(obj, "addressType")
	switch at {
	case "IPv4", "IPv6", "FQDN":
	case "":
		v.required("addressType", "")
	default:
		v.notSupported("addressType", at, "FQDN", "IPv4", "IPv6")
	}
	for i, e := range items(obj, "endpoints") {
		if empty(e, "addresses") {
			v.required(index("endpoints", i)+".addresses", "")
		}
	}
	for i, p := range items(obj, "ports") {
		pp := index("ports", i)
		if n, ok := integer(p, "port"); ok {
			v.portRange(pp+".port", n)
		}
		if proto := str(p, "protocol"); proto != "" {
			v.protocol(pp+".protocol", proto)
		}
		v.appProtocol(pp+".appProtocol", p)
	}
}

func validateCSIDriver(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	v.enum(spec, "fsGroupPolicy", "spec.fsGroupPolicy", "File", "None", "ReadWriteOnceWithFSType")
	audiences := map[string]bool{}
	for i, tr := range items(spec, "tokenRequests") {
		p := index("spec.tokenRequests", i)
		aud := str(tr, "audience")
		if audiences[aud] {
			v.duplicate(p+".audience", aud)
			continue
		}
		audiences[aud] = true
		if n, ok := integer(tr, "expirationSeconds"); ok {
			if n < 600 {
				v.invalidRaw(p+".expirationSeconds", strconv.FormatInt(n, 10), "may not specify a duration less than 10 minutes")
			}
			if n > 1<<32 {
				v.invalidRaw(p+".expirationSeconds", strconv.FormatInt(n, 10), "may not specify a duration larger than 2^32 seconds")
			}
		}
	}
	for _, mode := range stringsOf(spec, "volumeLifecycleModes") {
		if mode != "Persistent" && mode != "Ephemeral" {
			v.notSupported("spec.volumeLifecycleModes", mode, "Persistent", "Ephemeral")
		}
	}
}

func validateCSINode(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	seen := map[string]bool{}
	for i, d := range items(sub(obj, "spec"), "drivers") {
		p := index("spec.drivers", i)
		name := str(d, "name")
		if name == "" {
			v.required(p+".name", "")
		} else {
			v.problems(p+".name", name, validation.SubdomainProblems(name))
		}
		if str(d, "nodeID") == "" {
			v.required(p+".nodeID", "")
		}
		if n, ok := integer(sub(d, "allocatable"), "count"); ok && n < 0 {
			v.invalidRaw(p+".allocatable.count", strconv.FormatInt(n, 10), "must be greater than or equal to 0")
		}
		for _, k := range stringsOf(d, "topologyKeys") {
			// The real server reports a bad key on the driver itself.
			v.problems(p, k, qualifiedNameProblems(k))
		}
		if seen[name] {
			v.duplicate(p+".name", name)
		}
		seen[name] = true
	}
}

func validateVolumeAttachment(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	if str(spec, "attacher") == "" {
		v.required("spec.attacher", "")
	} else {
		v.problems("spec.attacher", str(spec, "attacher"), validation.SubdomainProblems(str(spec, "attacher")))
	}
	source := sub(spec, "source")
	if unset(source, "persistentVolumeName") == unset(source, "inlineVolumeSpec") {
		v.required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName")
	}
	node := str(spec, "nodeName")
	v.problems("spec.nodeName", node, validation.SubdomainProblems(node))
}

func validateCSIStorageCapacity(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	class := str(obj, "storageClassName")
	v.problems("storageClassName", class, validation.SubdomainProblems(class))
	// Only the capacity must not be negative (the real server takes a
	// negative maximumVolumeSize).
	if q, ok := quantityValue(obj.Get("capacity")); ok && q.Sign() < 0 {
		v.invalid("capacity", str(obj, "capacity"), "must be greater than or equal to 0")
	}
}

// validateRuntimeClass checks a RuntimeClass: its handler (a label), its
// pod overhead (as a container's limits) and its scheduling constraints,
// whose tolerations must differ in key, operator, value and effect.
func validateRuntimeClass(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	if h := str(obj, "handler"); h == "" {
		v.required("handler", "")
	} else {
		v.problems("handler", h, validation.LabelProblems(h))
	}
	if o := present(obj, "overhead"); o != nil {
		if fixed := present(o, "podFixed"); fixed != nil {
			limits := jsonv.NewObject()
			limits.Set("limits", *fixed)
			v.resources("overhead", &limits)
		}
	}
	s := present(obj, "scheduling")
	if s == nil {
		return
	}
	v.labels("scheduling.nodeSelector", stringMap(s, "nodeSelector"))
	seen := map[[4]string]bool{}
	for i, t := range items(s, "tolerations") {
		p := index("scheduling.tolerations", i)
		v.toleration(p, t)
		k := [4]string{str(t, "key"), str(t, "operator"), str(t, "value"), str(t, "effect")}
		if seen[k] {
			v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: p, Value: shownToleration(t)})
		}
		seen[k] = true
	}
}

// shownToleration renders a toleration as the real server shows its Go
// struct in a message.
func shownToleration(t *jsonv.Value) string {
	return shownStruct(t, [][2]string{{"Key", "key"}, {"Operator", "operator"}, {"Value", "value"}, {"Effect", "effect"}}, [2]string{"TolerationSeconds", "tolerationSeconds"}, jsonv.Number)
}
