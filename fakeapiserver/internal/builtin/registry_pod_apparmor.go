package builtin

import (
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// What the real Pod registry does on create with the deprecated AppArmor
// annotations of a pod that is not a windows pod: a container without an
// appArmorProfile of its own gets the profile its annotation names,
// unless that is the pod's profile, and the request is warned about
// every such annotation it did not leave unused.

// appArmorSync is, for one container with an annotation and no profile of
// its own, the profile to copy (nil for none) and whether to warn.
type appArmorSync struct {
	container *jsonv.Value
	key       string
	profile   *jsonv.Value
	warn      bool
}

// appArmorSyncs returns what the registry does for each container of
// spec with an AppArmor annotation in ann, in its order of containers.
func appArmorSyncs(ann map[string]string, spec *jsonv.Value) []appArmorSync {
	if spec == nil || len(ann) == 0 || str(sub(spec, "os"), "name") == "windows" {
		return nil
	}
	podProfile := present(sub(spec, "securityContext"), "appArmorProfile")
	var out []appArmorSync
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range items(spec, list) {
			k := appArmorContainerPrefix + str(c, "name")
			a, ok := ann[k]
			if !ok || present(sub(c, "securityContext"), "appArmorProfile") != nil {
				continue
			}
			s := appArmorSync{container: c, key: k}
			profile := appArmorProfileFor(a)
			if profile == nil {
				s.warn = true
			} else if podProfile == nil || !sameAppArmorProfile(profile, podProfile) {
				s.profile, s.warn = profile, true
			}
			out = append(out, s)
		}
	}
	return out
}

// appArmorProfileFor is the profile an annotation value names, nil when
// it names none the real server accepts as a field.
func appArmorProfileFor(a string) *jsonv.Value {
	var p jsonv.Value
	switch {
	case a == appArmorUnconfinedMarker:
		p = object(jsonv.Member{Key: "type", Value: jsonv.NewString("Unconfined")})
	case a == appArmorRuntimeDefault:
		p = object(jsonv.Member{Key: "type", Value: jsonv.NewString("RuntimeDefault")})
	case strings.HasPrefix(a, appArmorLocalhostPrefix):
		local := strings.TrimPrefix(a, appArmorLocalhostPrefix)
		if local == "" || strings.TrimSpace(local) != local || len(local) > 4095 {
			return nil
		}
		p = object(jsonv.Member{Key: "type", Value: jsonv.NewString("Localhost")}, jsonv.Member{Key: "localhostProfile", Value: jsonv.NewString(local)})
	default:
		return nil
	}
	return &p
}

// sameAppArmorProfile compares two profiles by type and localhost
// profile.
func sameAppArmorProfile(a, b *jsonv.Value) bool {
	if str(a, "type") != str(b, "type") {
		return false
	}
	la, lb := a.Get("localhostProfile"), b.Get("localhostProfile")
	setA, setB := la != nil && la.Kind == jsonv.String, lb != nil && lb.Kind == jsonv.String
	return setA == setB && (!setA || la.Str == lb.Str)
}

// syncAppArmorAnnotations copies each container's annotated AppArmor
// profile into its security context, as the real registry does on
// create.
func syncAppArmorAnnotations(m *meta.ObjectMeta, spec *jsonv.Value) {
	if m == nil {
		return
	}
	for _, s := range appArmorSyncs(m.Annotations, spec) {
		if s.profile == nil {
			continue
		}
		if sc := child(s.container, "securityContext"); sc != nil {
			sc.Set("appArmorProfile", *s.profile)
		}
	}
}

// CreateWarnings returns the Warning headers the real registry adds
// while it prepares a new object, before its strategy's own (Warnings):
// a Pod's deprecated AppArmor annotations, each as
// `metadata.annotations[<key>]: deprecated since v1.30; …`.
func CreateWarnings(k Kind, m *meta.ObjectMeta, obj *jsonv.Value) []string {
	if k.Group != "" || k.Kind != "Pod" || m == nil {
		return nil
	}
	var out []string
	for _, s := range appArmorSyncs(m.Annotations, present(obj, "spec")) {
		if s.warn {
			out = append(out, key("metadata.annotations", s.key)+`: deprecated since v1.30; use the "appArmorProfile" field instead`)
		}
	}
	return out
}
