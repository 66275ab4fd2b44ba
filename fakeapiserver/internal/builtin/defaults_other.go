package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Defaults of the kinds outside core, apps and batch.

// defaultHPAv2 defaults an autoscaling/v2 HorizontalPodAutoscaler:
// minReplicas 1, a CPU utilization target of 80 % when no metric is given,
// and both scaling behaviours filled from the real server's rules when a
// behavior is given.
func defaultHPAv2(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	ptrInt(spec, "minReplicas", 1)
	if empty(spec, "metrics") {
		target := object(
			jsonv.Member{Key: "type", Value: jsonv.NewString("Utilization")},
			jsonv.Member{Key: "averageUtilization", Value: number(80)},
		)
		resource := object(
			jsonv.Member{Key: "name", Value: jsonv.NewString("cpu")},
			jsonv.Member{Key: "target", Value: target},
		)
		spec.Set("metrics", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{object(
			jsonv.Member{Key: "type", Value: jsonv.NewString("Resource")},
			jsonv.Member{Key: "resource", Value: resource},
		)}})
	}
	b := present(spec, "behavior")
	if b == nil {
		return
	}
	scalingRules(b, "scaleUp", true)
	scalingRules(b, "scaleDown", false)
}

// scalingPolicy is one HPAScalingPolicy.
func scalingPolicy(typ string, value, period int64) jsonv.Value {
	return object(
		jsonv.Member{Key: "type", Value: jsonv.NewString(typ)},
		jsonv.Member{Key: "value", Value: number(value)},
		jsonv.Member{Key: "periodSeconds", Value: number(period)},
	)
}

// scalingRules fills one direction of an HPA behavior: the given
// selectPolicy, stabilizationWindowSeconds, policies and tolerance are
// kept, the rest come from the defaults (up: no window, 4 pods or 100 %
// per 15 s; down: 100 % per 15 s and no window of its own).
func scalingRules(b *jsonv.Value, key string, up bool) {
	rules := child(b, key)
	if rules == nil {
		return
	}
	if up {
		ptrInt(rules, "stabilizationWindowSeconds", 0)
	}
	ptrString(rules, "selectPolicy", "Max")
	if unset(rules, "policies") {
		if up {
			rules.Set("policies", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{scalingPolicy("Pods", 4, 15), scalingPolicy("Percent", 100, 15)}})
		} else {
			rules.Set("policies", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{scalingPolicy("Percent", 100, 15)}})
		}
	}
}

// defaultHPAv1 defaults an autoscaling/v1 HorizontalPodAutoscaler. The
// real server keeps HPAs as v2 and converts: the CPU target of 80 % that
// v2 defaults reads back as targetCPUUtilizationPercentage.
func defaultHPAv1(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := child(obj, "spec"); spec != nil {
		ptrInt(spec, "minReplicas", 1)
		ptrInt(spec, "targetCPUUtilizationPercentage", 80)
	}
}

// defaultNetworkPolicy defaults policyTypes (Ingress, and Egress when
// egress rules are given) and each port's protocol.
func defaultNetworkPolicy(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	if empty(spec, "policyTypes") {
		if empty(spec, "egress") {
			spec.Set("policyTypes", stringArray("Ingress"))
		} else {
			spec.Set("policyTypes", stringArray("Ingress", "Egress"))
		}
	}
	for _, dir := range []string{"ingress", "egress"} {
		each(spec, dir, func(rule *jsonv.Value) {
			each(rule, "ports", func(p *jsonv.Value) { ptrString(p, "protocol", "TCP") })
		})
	}
}

// defaultIngressClass defaults a parameters reference's scope to Cluster.
func defaultIngressClass(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := present(obj, "spec"); spec != nil {
		if p := present(spec, "parameters"); p != nil {
			ptrString(p, "scope", "Cluster")
		}
	}
}

// defaultBinding defaults a RoleBinding's or ClusterRoleBinding's roleRef
// API group and each subject's.
func defaultBinding(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if ref := child(obj, "roleRef"); ref != nil {
		orString(ref, "apiGroup", "rbac.authorization.k8s.io")
	}
	each(obj, "subjects", func(s *jsonv.Value) {
		if !empty(s, "apiGroup") {
			return
		}
		switch str(s, "kind") {
		case "User", "Group":
			s.Set("apiGroup", jsonv.NewString("rbac.authorization.k8s.io"))
		}
	})
}

// defaultEndpointSlice defaults each port's name to "" and protocol to
// TCP.
func defaultEndpointSlice(_ *meta.ObjectMeta, obj *jsonv.Value) {
	each(obj, "ports", func(p *jsonv.Value) {
		ptrString(p, "name", "")
		ptrString(p, "protocol", "TCP")
	})
}

// defaultStorageClass defaults reclaimPolicy Delete and volumeBindingMode
// Immediate.
func defaultStorageClass(_ *meta.ObjectMeta, obj *jsonv.Value) {
	ptrString(obj, "reclaimPolicy", "Delete")
	ptrString(obj, "volumeBindingMode", "Immediate")
}

// defaultCSIDriver defaults a CSIDriver's spec as the 1.37 server does
// (the SELinuxMountReadWriteOncePod and VolumeLimitScaling gates on).
func defaultCSIDriver(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	ptrBool(spec, "attachRequired", true)
	ptrBool(spec, "podInfoOnMount", false)
	ptrBool(spec, "storageCapacity", false)
	ptrString(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType")
	if empty(spec, "volumeLifecycleModes") {
		spec.Set("volumeLifecycleModes", stringArray("Persistent"))
	}
	ptrBool(spec, "requiresRepublish", false)
	ptrBool(spec, "seLinuxMount", false)
	ptrBool(spec, "preventPodSchedulingIfMissing", false)
}

// defaultVolumeAttachment defaults an inline volume spec's source.
func defaultVolumeAttachment(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := present(obj, "spec"); spec != nil {
		if src := present(spec, "source"); src != nil {
			if inline := present(src, "inlineVolumeSpec"); inline != nil {
				volumeSourceDefaults(inline)
			}
		}
	}
}

// defaultPriorityClass defaults preemptionPolicy to PreemptLowerPriority.
func defaultPriorityClass(_ *meta.ObjectMeta, obj *jsonv.Value) {
	ptrString(obj, "preemptionPolicy", "PreemptLowerPriority")
}

// defaultPodCertificateRequest defaults maxExpirationSeconds to a day.
func defaultPodCertificateRequest(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := child(obj, "spec"); spec != nil {
		ptrInt(spec, "maxExpirationSeconds", 86400)
	}
}

// defaultAPIService defaults the port of the service an APIService
// proxies to: 443.
func defaultAPIService(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if svc := present(sub(obj, "spec"), "service"); svc != nil {
		ptrInt(svc, "port", 443)
	}
}

// defaultFlowSchema defaults matchingPrecedence to 1000.
func defaultFlowSchema(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := child(obj, "spec"); spec != nil {
		orInt(spec, "matchingPrecedence", 1000)
	}
}

// defaultPriorityLevel defaults a PriorityLevelConfiguration's limited or
// exempt settings.
func defaultPriorityLevel(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	if l := present(spec, "limited"); l != nil {
		ptrInt(l, "nominalConcurrencyShares", 30)
		ptrInt(l, "lendablePercent", 0)
		if lr := child(l, "limitResponse"); lr != nil {
			if q := present(lr, "queuing"); q != nil {
				orInt(q, "handSize", 8)
				orInt(q, "queues", 64)
				orInt(q, "queueLengthLimit", 50)
			}
		}
	}
	if e := present(spec, "exempt"); e != nil {
		ptrInt(e, "nominalConcurrencyShares", 0)
		ptrInt(e, "lendablePercent", 0)
	}
}

// webhookConfiguration defaults each webhook of a validating (mutating
// false) or mutating webhook configuration.
func webhookConfiguration(mutating bool) func(*meta.ObjectMeta, *jsonv.Value) {
	return func(_ *meta.ObjectMeta, obj *jsonv.Value) {
		each(obj, "webhooks", func(w *jsonv.Value) {
			ptrString(w, "failurePolicy", "Fail")
			ptrString(w, "matchPolicy", "Equivalent")
			ptrObject(w, "namespaceSelector")
			ptrObject(w, "objectSelector")
			ptrInt(w, "timeoutSeconds", 10)
			if mutating {
				ptrString(w, "reinvocationPolicy", "Never")
			}
			if cc := present(w, "clientConfig"); cc != nil {
				if svc := present(cc, "service"); svc != nil {
					ptrInt(svc, "port", 443)
				}
			}
			each(w, "rules", ruleScope)
		})
	}
}

// ruleScope defaults an admission rule's scope to "*".
func ruleScope(r *jsonv.Value) { ptrString(r, "scope", "*") }

// matchResources defaults an admission policy's or binding's match
// resources.
func matchResources(m *jsonv.Value) {
	ptrString(m, "matchPolicy", "Equivalent")
	ptrObject(m, "namespaceSelector")
	ptrObject(m, "objectSelector")
	each(m, "resourceRules", ruleScope)
	each(m, "excludeResourceRules", ruleScope)
}

// defaultAdmissionPolicy defaults a validating or mutating admission
// policy: failurePolicy Fail and its match constraints.
func defaultAdmissionPolicy(_ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	ptrString(spec, "failurePolicy", "Fail")
	if m := present(spec, "matchConstraints"); m != nil {
		matchResources(m)
	}
}

// defaultAdmissionPolicyBinding defaults a binding's match resources.
func defaultAdmissionPolicyBinding(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := present(obj, "spec"); spec != nil {
		if m := present(spec, "matchResources"); m != nil {
			matchResources(m)
		}
	}
}

// deviceRequests defaults the device requests of a resource claim spec.
func deviceRequests(spec *jsonv.Value) {
	devices := present(spec, "devices")
	if devices == nil {
		return
	}
	each(devices, "requests", func(r *jsonv.Value) {
		if ex := present(r, "exactly"); ex != nil {
			allocationMode(ex)
		}
		each(r, "firstAvailable", allocationMode)
	})
}

// allocationMode defaults an exact or sub request's allocation mode and
// count, and its tolerations' operator.
func allocationMode(r *jsonv.Value) {
	orString(r, "allocationMode", "ExactCount")
	if str(r, "allocationMode") == "ExactCount" {
		orInt(r, "count", 1)
	}
	each(r, "tolerations", func(t *jsonv.Value) { orString(t, "operator", "Equal") })
}

// defaultResourceClaim defaults a ResourceClaim's device requests and its
// allocation's tolerations.
func defaultResourceClaim(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := present(obj, "spec"); spec != nil {
		deviceRequests(spec)
	}
	if status := present(obj, "status"); status != nil {
		if a := present(status, "allocation"); a != nil {
			if d := present(a, "devices"); d != nil {
				each(d, "results", func(r *jsonv.Value) {
					each(r, "tolerations", func(t *jsonv.Value) { orString(t, "operator", "Equal") })
				})
			}
		}
	}
}

// defaultResourceClaimTemplate defaults the claim spec of a template.
func defaultResourceClaimTemplate(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := present(obj, "spec"); spec != nil {
		if inner := present(spec, "spec"); inner != nil {
			deviceRequests(inner)
		}
	}
}

// defaultTokenRequest defaults a TokenRequest's expiry to an hour.
func defaultTokenRequest(_ *meta.ObjectMeta, obj *jsonv.Value) {
	if spec := child(obj, "spec"); spec != nil {
		ptrInt(spec, "expirationSeconds", 3600)
	}
}
