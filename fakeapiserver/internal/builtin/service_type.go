package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// dropTypeDependentFields clears what an update of a Service to another
// type leaves that the new type does not use and the update did not
// change, as the real strategy does (the allocator has already released
// what they held): the cluster IP fields when it becomes ExternalName,
// node ports when it stops being NodePort or LoadBalancer, the health
// check port when it stops needing one, allocateLoadBalancerNodePorts
// and loadBalancerClass when it stops being LoadBalancer, and
// externalTrafficPolicy when it stops being reachable from outside.
func dropTypeDependentFields(spec, oldSpec *jsonv.Value) {
	typ, oldTyp := str(spec, "type"), str(oldSpec, "type")
	if oldTyp != "ExternalName" && typ == "ExternalName" {
		if str(spec, "clusterIP") == str(oldSpec, "clusterIP") && sameStrings(stringsOf(spec, "clusterIPs"), stringsOf(oldSpec, "clusterIPs")) {
			spec.Delete("clusterIP")
			spec.Delete("clusterIPs")
		}
		if same(spec, oldSpec, "ipFamilies") {
			spec.Delete("ipFamilies")
		}
		if str(spec, "ipFamilyPolicy") == str(oldSpec, "ipFamilyPolicy") {
			spec.Delete("ipFamilyPolicy")
		}
	}
	if usesNodePorts(oldTyp) && !usesNodePorts(typ) && nodePortsKept(spec, oldSpec) {
		each(spec, "ports", func(p *jsonv.Value) { p.Delete("nodePort") })
	}
	if needsHealthCheckPort(oldSpec) && !needsHealthCheckPort(spec) && same(spec, oldSpec, "healthCheckNodePort") {
		spec.Delete("healthCheckNodePort")
	}
	if oldTyp == "LoadBalancer" && typ != "LoadBalancer" {
		if !unset(spec, "allocateLoadBalancerNodePorts") && same(spec, oldSpec, "allocateLoadBalancerNodePorts") {
			spec.Delete("allocateLoadBalancerNodePorts")
		}
		if same(spec, oldSpec, "loadBalancerClass") {
			spec.Delete("loadBalancerClass")
		}
	}
	if externallyReachable(oldSpec) && !externallyReachable(spec) && str(spec, "externalTrafficPolicy") == str(oldSpec, "externalTrafficPolicy") {
		spec.Delete("externalTrafficPolicy")
	}
}

// usesNodePorts reports whether a Service of type typ has node ports.
func usesNodePorts(typ string) bool { return typ == "NodePort" || typ == "LoadBalancer" }

// needsHealthCheckPort reports whether a Service spec has a health check
// node port: a LoadBalancer with the Local traffic policy.
func needsHealthCheckPort(spec *jsonv.Value) bool {
	return str(spec, "type") == "LoadBalancer" && str(spec, "externalTrafficPolicy") == "Local"
}

// externallyReachable reports whether a Service spec takes traffic from
// outside the cluster: NodePort, LoadBalancer, or ClusterIP with
// external IPs.
func externallyReachable(spec *jsonv.Value) bool {
	typ := str(spec, "type")
	return usesNodePorts(typ) || (typ == "ClusterIP" && !empty(spec, "externalIPs"))
}

// nodePortsKept reports whether every node port of spec was one of
// oldSpec's: the update added none.
func nodePortsKept(spec, oldSpec *jsonv.Value) bool {
	old := map[string]bool{}
	each(oldSpec, "ports", func(p *jsonv.Value) {
		if !empty(p, "nodePort") {
			old[p.Get("nodePort").Str] = true
		}
	})
	kept := true
	each(spec, "ports", func(p *jsonv.Value) {
		if !empty(p, "nodePort") && !old[p.Get("nodePort").Str] {
			kept = false
		}
	})
	return kept
}
