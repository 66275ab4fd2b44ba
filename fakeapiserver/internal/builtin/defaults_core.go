package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Defaults of the core/v1 kinds other than Pods and workloads.

// defaultService defaults a Service's spec: type ClusterIP, session
// affinity None (ClientIP gets its 10800 s timeout), each port's protocol
// TCP and targetPort its port, the traffic policies, and a LoadBalancer's
// node port allocation and ingress IP mode.
func defaultService(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	orString(spec, "sessionAffinity", "None")
	switch str(spec, "sessionAffinity") {
	case "None":
		spec.Delete("sessionAffinityConfig")
	case "ClientIP":
		cfg := present(spec, "sessionAffinityConfig")
		var ip *jsonv.Value
		if cfg != nil {
			ip = present(cfg, "clientIP")
		}
		if ip == nil || unset(ip, "timeoutSeconds") {
			spec.Set("sessionAffinityConfig", object(jsonv.Member{Key: "clientIP", Value: object(jsonv.Member{Key: "timeoutSeconds", Value: number(10800)})}))
		}
	}
	orString(spec, "type", "ClusterIP")
	typ := str(spec, "type")
	each(spec, "ports", func(p *jsonv.Value) {
		orString(p, "protocol", "TCP")
		if empty(p, "targetPort") {
			port := number(0)
			if v := p.Get("port"); v != nil && v.Kind == jsonv.Number {
				port = *v
			}
			p.Set("targetPort", port)
		}
	})
	external := typ == "LoadBalancer" || typ == "NodePort" || (typ == "ClusterIP" && !empty(spec, "externalIPs"))
	if external {
		orString(spec, "externalTrafficPolicy", "Cluster")
	}
	if unset(spec, "internalTrafficPolicy") && (typ == "NodePort" || typ == "LoadBalancer" || typ == "ClusterIP") {
		spec.Set("internalTrafficPolicy", jsonv.NewString("Cluster"))
	}
	if typ == "LoadBalancer" {
		ptrBool(spec, "allocateLoadBalancerNodePorts", true)
		if status := present(obj, "status"); status != nil {
			if lb := present(status, "loadBalancer"); lb != nil {
				each(lb, "ingress", func(ing *jsonv.Value) {
					if str(ing, "ip") != "" {
						ptrString(ing, "ipMode", "VIP")
					}
				})
			}
		}
	}
}

// defaultSecret defaults a Secret's type to Opaque.
func defaultSecret(_ *meta.ObjectMeta, obj *jsonv.Value) {
	orString(obj, "type", "Opaque")
}

// defaultPV defaults a PersistentVolume: phase Pending, reclaim policy
// Retain, volume mode Filesystem and its volume source's declared
// defaults.
func defaultPV(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := child(obj, "spec"); spec != nil {
		orString(spec, "persistentVolumeReclaimPolicy", "Retain")
		ptrString(spec, "volumeMode", "Filesystem")
		if s := present(spec, "hostPath"); s != nil {
			ptrString(s, "type", "")
		}
		volumeSourceDefaults(spec)
	}
	if status := child(obj, "status"); status != nil {
		orString(status, "phase", "Pending")
	}
}

// defaultPVC defaults a PersistentVolumeClaim (also a StatefulSet's claim
// templates): volume mode Filesystem and phase Pending.
func defaultPVC(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := child(obj, "spec"); spec != nil {
		pvcSpec(spec)
	}
	if status := child(obj, "status"); status != nil {
		orString(status, "phase", "Pending")
	}
}

// pvcSpec defaults a claim's spec.
func pvcSpec(spec *jsonv.Value) {
	ptrString(spec, "volumeMode", "Filesystem")
}

// defaultEndpoints defaults each Endpoints port's protocol to TCP.
func defaultEndpoints(_ *meta.ObjectMeta, obj *jsonv.Value) {
	each(obj, "subsets", func(ss *jsonv.Value) {
		each(ss, "ports", func(p *jsonv.Value) { orString(p, "protocol", "TCP") })
	})
}

// defaultNamespace defaults a Namespace's phase to Active.
func defaultNamespace(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if status := child(obj, "status"); status != nil {
		orString(status, "phase", "Active")
	}
}

// defaultNode copies a Node's capacity into its allocatable when it has
// none.
func defaultNode(_ *meta.ObjectMeta, obj *jsonv.Value) {
	status := present(obj, "status")
	if status == nil {
		return
	}
	if c := present(status, "capacity"); c != nil && unset(status, "allocatable") {
		status.Set("allocatable", c.Clone())
	}
}

// defaultLimitRange fills a Container limit's default from its max and its
// defaultRequest from its default and min.
func defaultLimitRange(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	each(spec, "limits", func(item *jsonv.Value) {
		if str(item, "type") != "Container" {
			return
		}
		fillMissing(item, "default", item.Get("max"))
		fillMissing(item, "defaultRequest", item.Get("default"))
		fillMissing(item, "defaultRequest", item.Get("min"))
	})
}

// fillMissing copies into the map under key each member of from it lacks.
// The map is created only when there is something to copy (an empty
// resource list is not shown).
func fillMissing(v *jsonv.Value, key string, from *jsonv.Value) {
	if from == nil || from.Kind != jsonv.Object || len(from.Obj) == 0 {
		return
	}
	var add []jsonv.Member
	to := present(v, key)
	for _, m := range from.Obj {
		if to == nil || to.Get(m.Key) == nil {
			add = append(add, jsonv.Member{Key: m.Key, Value: m.Value.Clone()})
		}
	}
	if len(add) == 0 {
		return
	}
	if to = child(v, key); to != nil {
		to.Obj = append(to.Obj, add...)
	}
}
