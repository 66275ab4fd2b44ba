package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// dropDisabledPodSpecFields drops the pod spec fields whose feature
// gates are off by default in 1.37, as the real registry does on the
// create and update of a Pod and of every object with a pod template:
//
//   - a container's lifecycle.stopSignal (ContainerStopSignals), and the
//     lifecycle itself when nothing else is left in it;
//   - an HTTP probe's or hook's protocol (H2CContainerProbe);
//   - a gRPC probe's mode (GRPCContainerProbeTLS);
//   - a volume mount's bindMountOptions (VolumeBindMountOptions);
//   - an emptyDir's mode (EmptyDirVolumeMode);
//   - the owner fields of secret, configMap, downwardAPI and projected
//     volumes (AtomicWriteVolumeUserFields): defaultUser and each item's
//     user;
//   - the spec's schedulingGroup (GenericWorkload) and
//     evictionResponders (EvictionRequestAPI).
//
// A stored object never holds them, so the real server's exception for
// fields the old object already uses never applies.
func dropDisabledPodSpecFields(spec *jsonv.Value) {
	if spec == nil {
		return
	}
	spec.Delete("schedulingGroup")
	spec.Delete("evictionResponders")
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		each(spec, list, dropDisabledContainerFields)
	}
	each(spec, "volumes", dropDisabledVolumeFields)
}

// dropDisabledContainerFields drops a container's gated fields.
func dropDisabledContainerFields(c *jsonv.Value) {
	for _, k := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if p := present(c, k); p != nil {
			if get := present(p, "httpGet"); get != nil {
				get.Delete("protocol")
			}
			if g := present(p, "grpc"); g != nil {
				g.Delete("mode")
			}
		}
	}
	if lc := present(c, "lifecycle"); lc != nil {
		for _, k := range []string{"postStart", "preStop"} {
			if get := present(present(lc, k), "httpGet"); get != nil {
				get.Delete("protocol")
			}
		}
		if lc.Get("stopSignal") != nil {
			lc.Delete("stopSignal")
			if unset(lc, "postStart") && unset(lc, "preStop") {
				c.Delete("lifecycle")
			}
		}
	}
	each(c, "volumeMounts", func(m *jsonv.Value) { m.Delete("bindMountOptions") })
}

// dropDisabledVolumeFields drops a volume's gated fields. As in the real
// registry, only the first of its secret, configMap, downwardAPI and
// projected sources loses its owner fields.
func dropDisabledVolumeFields(vol *jsonv.Value) {
	if e := present(vol, "emptyDir"); e != nil {
		e.Delete("mode")
	}
	for _, k := range []string{"secret", "configMap", "downwardAPI", "projected"} {
		s := present(vol, k)
		if s == nil {
			continue
		}
		s.Delete("defaultUser")
		each(s, "items", func(it *jsonv.Value) { it.Delete("user") })
		each(s, "sources", dropDisabledProjectionFields)
		return
	}
}

// dropDisabledProjectionFields drops the owner fields of the first
// source a projection names.
func dropDisabledProjectionFields(src *jsonv.Value) {
	for _, k := range []string{"secret", "downwardAPI", "configMap"} {
		if s := present(src, k); s != nil {
			each(s, "items", func(it *jsonv.Value) { it.Delete("user") })
			return
		}
	}
	for _, k := range []string{"serviceAccountToken", "clusterTrustBundle", "podCertificate"} {
		if s := present(src, k); s != nil {
			s.Delete("user")
			return
		}
	}
}

// podSpecOf returns the pod spec an object of a kind holds: a Pod's
// spec, or its pod template's.
func podSpecOf(group, kind string, obj *jsonv.Value) *jsonv.Value {
	switch group + "/" + kind {
	case "/Pod":
		return present(obj, "spec")
	case "/PodTemplate":
		return present(present(obj, "template"), "spec")
	case "/ReplicationController", "apps/Deployment", "apps/ReplicaSet", "apps/DaemonSet", "apps/StatefulSet", "batch/Job":
		return present(present(present(obj, "spec"), "template"), "spec")
	case "batch/CronJob":
		return present(present(present(present(present(obj, "spec"), "jobTemplate"), "spec"), "template"), "spec")
	}
	return nil
}
