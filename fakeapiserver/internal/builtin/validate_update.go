package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// updateRule checks what an update may not change. obj and old hold the
// members other than metadata of the new and the stored object.
type updateRule func(v *validator, obj, old *jsonv.Value)

// updateRules maps "group/Kind" to its immutability rules.
var updateRules = map[string]updateRule{
	"/ConfigMap":                            immutableData("data", "binaryData"),
	"/Secret":                               secretUpdate,
	"/Service":                              serviceUpdate,
	"/Pod":                                  podUpdate,
	"/PersistentVolumeClaim":                pvcUpdate,
	"apps/Deployment":                       selectorUpdate,
	"apps/ReplicaSet":                       selectorUpdate,
	"apps/DaemonSet":                        selectorUpdate,
	"apps/StatefulSet":                      statefulSetUpdate,
	"batch/Job":                             jobUpdate,
	"rbac.authorization.k8s.io/RoleBinding": roleRefUpdate,
	"rbac.authorization.k8s.io/ClusterRoleBinding":    roleRefUpdate,
	"scheduling.k8s.io/PriorityClass":                 priorityClassUpdate,
	"/Node":                                           nodeUpdate,
	"apps/ControllerRevision":                         controllerRevisionUpdate,
	"storage.k8s.io/StorageClass":                     storageClassUpdate,
	"storage.k8s.io/VolumeAttributesClass":            volumeAttributesClassUpdate,
	"certificates.k8s.io/ClusterTrustBundle":          clusterTrustBundleUpdate,
	"certificates.k8s.io/PodCertificateRequest":       podCertificateRequestUpdate,
	"storagemigration.k8s.io/StorageVersionMigration": storageVersionMigrationUpdate,
}

// ValidateUpdate checks an update of an object of kind in group as the
// real server's update validators do: the kind's rules for any object
// (Validate), then what may not change from old, the stored object. The
// checks only a create makes (a CronJob's name length) are left out, and
// so is a ClusterTrustBundle's PEM parse when its bundle is unchanged.
func ValidateUpdate(group, kind string, m *meta.ObjectMeta, obj, old *jsonv.Value) []FieldError {
	if obj == nil || obj.Kind != jsonv.Object {
		return nil
	}
	if m == nil {
		m = &meta.ObjectMeta{}
	}
	v := &validator{}
	if rule := updateRules[group+"/"+kind]; rule != nil && old != nil && old.Kind == jsonv.Object {
		// The rules compare as the real server does, an empty list
		// and an absent one alike.
		rule(v, withoutEmptyLists(obj), withoutEmptyLists(old))
	}
	switch group + "/" + kind {
	case "resource.k8s.io/ResourceSlice":
		if old != nil {
			v.resourceSlice(obj, old)
			return v.errs
		}
	case "batch/CronJob":
		short := *m
		short.Name = ""
		return append(v.errs, validateKind(group, kind, &short, obj)...)
	case "certificates.k8s.io/ClusterTrustBundle":
		if old != nil && same(sub(obj, "spec"), sub(old, "spec"), "trustBundle") {
			// An unchanged bundle is not parsed again, so a change of
			// the PEM parser never locks an object.
			for _, e := range validateKind(group, kind, m, obj) {
				if e.Field != "spec.trustBundle" {
					v.add(e)
				}
			}
			return v.errs
		}
	}
	return append(v.errs, validateKind(group, kind, m, obj)...)
}

// same reports whether key holds the same value in both objects (absent
// and null alike).
func same(a, b *jsonv.Value, key string) bool {
	x, y := a.Get(key), b.Get(key)
	if x == nil || x.Kind == jsonv.Null {
		return y == nil || y.Kind == jsonv.Null
	}
	return y != nil && jsonv.Equal(*x, *y)
}

// isTrue reports whether key holds true.
func isTrue(v *jsonv.Value, key string) bool {
	b := v.Get(key)
	return b != nil && b.Kind == jsonv.Bool && b.B
}

// immutableData forbids changes to the data members of a ConfigMap or
// Secret marked immutable, and unmarking it.
func immutableData(keys ...string) updateRule {
	return func(v *validator, obj, old *jsonv.Value) {
		if !isTrue(old, "immutable") {
			return
		}
		if !isTrue(obj, "immutable") {
			v.forbidden("immutable", "field is immutable when `immutable` is set")
		}
		for _, k := range keys {
			if !same(obj, old, k) {
				v.forbidden(k, "field is immutable when `immutable` is set")
			}
		}
	}
}

func secretUpdate(v *validator, obj, old *jsonv.Value) {
	if t := str(obj, "type"); t != str(old, "type") {
		v.invalid("type", t, "field is immutable")
	}
	immutableData("data")(v, obj, old)
}

// serviceUpdate checks how an update changes a Service's cluster IPs and
// IP families.
func serviceUpdate(v *validator, obj, old *jsonv.Value) {
	v.serviceIPsUpdate(sub(obj, "spec"), sub(old, "spec"))
}

// selectorUpdate forbids changing a workload's selector.
func selectorUpdate(v *validator, obj, old *jsonv.Value) {
	immutableJSON(v, sub(obj, "spec"), sub(old, "spec"), "selector")
}

// immutableJSON reports spec.key immutable if it changed, showing the new
// value as its JSON (null when absent).
func immutableJSON(v *validator, spec, oldSpec *jsonv.Value, key string) {
	if same(spec, oldSpec, key) {
		return
	}
	shown := "null"
	if x := spec.Get(key); x != nil {
		shown = string(jsonv.Marshal(*x))
	}
	v.invalidRaw("spec."+key, shown, "field is immutable")
}

func statefulSetUpdate(v *validator, obj, old *jsonv.Value) {
	spec, oldSpec := sub(obj, "spec"), sub(old, "spec")
	for _, k := range []string{"serviceName", "podManagementPolicy"} {
		if !same(spec, oldSpec, k) {
			v.invalid("spec."+k, str(spec, k), "field is immutable")
		}
	}
	selectorUpdate(v, obj, old)
	if !same(spec, oldSpec, "volumeClaimTemplates") {
		v.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")
	}
}

// jobUpdate forbids changing a Job's selector, its pod template (the
// real server shows the template as its internal Go struct; the fake
// shows the JSON) and, unless indexed, its completions.
func jobUpdate(v *validator, obj, old *jsonv.Value) {
	selectorUpdate(v, obj, old)
	spec, oldSpec := sub(obj, "spec"), sub(old, "spec")
	immutableJSON(v, spec, oldSpec, "template")
	if !same(spec, oldSpec, "completions") && str(spec, "completionMode") != "Indexed" {
		n, _ := integer(spec, "completions")
		v.invalidRaw("spec.completions", strconv.FormatInt(n, 10), "field is immutable")
	}
}

func roleRefUpdate(v *validator, obj, old *jsonv.Value) {
	if same(obj, old, "roleRef") {
		return
	}
	ref := sub(obj, "roleRef")
	v.invalidRaw("roleRef", `{"APIGroup":`+strconv.Quote(str(ref, "apiGroup"))+`,"Kind":`+strconv.Quote(str(ref, "kind"))+`,"Name":`+strconv.Quote(str(ref, "name"))+`}`, "field is immutable")
}

func priorityClassUpdate(v *validator, obj, old *jsonv.Value) {
	if !same(obj, old, "value") {
		v.forbidden("value", "may not be changed in an update.")
	}
}

// podMutable are the spec members a Pod update may change (each
// container's image is checked apart).
var podMutable = map[string]bool{
	"activeDeadlineSeconds": true, "tolerations": true, "terminationGracePeriodSeconds": true,
	"containers": true, "initContainers": true, "schedulingGates": true,
}

// podUpdate allows only the real server's in-place changes of a Pod spec:
// images, activeDeadlineSeconds, added tolerations, a negative grace
// period raised to 1, removed scheduling gates. The real message ends
// with a diff of the internal Go struct, which the fake leaves out.
func podUpdate(v *validator, obj, old *jsonv.Value) {
	spec, oldSpec := sub(obj, "spec"), sub(old, "spec")
	changed := false
	seen := map[string]bool{}
	for _, s := range []*jsonv.Value{spec, oldSpec} {
		for _, m := range s.Obj {
			if seen[m.Key] || podMutable[m.Key] {
				continue
			}
			seen[m.Key] = true
			if !same(spec, oldSpec, m.Key) {
				changed = true
			}
		}
	}
	for _, list := range []string{"containers", "initContainers"} {
		a, b := items(spec, list), items(oldSpec, list)
		if len(a) != len(b) {
			changed = true
			continue
		}
		for i := range a {
			x, y := a[i].Clone(), b[i].Clone()
			x.Delete("image")
			y.Delete("image")
			if !jsonv.Equal(x, y) {
				changed = true
			}
		}
	}
	if changed {
		v.forbidden("spec", "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)")
	}
}

// pvcUpdate allows a claim's spec to change only in its storage requests
// and volume attributes class. The real message ends with a diff of the
// internal Go struct, which the fake leaves out.
func pvcUpdate(v *validator, obj, old *jsonv.Value) {
	spec, oldSpec := sub(obj, "spec"), sub(old, "spec")
	a, b := spec.Clone(), oldSpec.Clone()
	for _, s := range []*jsonv.Value{&a, &b} {
		s.Delete("volumeAttributesClassName")
		if res := present(s, "resources"); res != nil {
			res.Delete("requests")
		}
	}
	if !jsonv.Equal(a, b) {
		v.forbidden("spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims")
	}
}
