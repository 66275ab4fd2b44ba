package builtin

import (
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The annotations the real validator reads on a Pod and on a pod
// template: a mirror pod's node, the legacy tolerations, seccomp and
// AppArmor annotations, and the deletion cost.

const (
	mirrorPodAnnotation      = "kubernetes.io/config.mirror"
	tolerationsAnnotation    = "scheduler.alpha.kubernetes.io/tolerations"
	deletionCostAnnotation   = "controller.kubernetes.io/pod-deletion-cost"
	seccompPodAnnotation     = "seccomp.security.alpha.kubernetes.io/pod"
	seccompContainerPrefix   = "container.seccomp.security.alpha.kubernetes.io/"
	appArmorContainerPrefix  = "container.apparmor.security.beta.kubernetes.io/"
	appArmorLocalhostPrefix  = "localhost/"
	seccompLocalhostPrefix   = "localhost/"
	appArmorRuntimeDefault   = "runtime/default"
	appArmorUnconfinedMarker = "unconfined"
)

// podAnnotations checks the pod-specific annotations ann of a pod spec;
// path is where they sit (metadata.annotations of a Pod, the template's
// annotations otherwise).
func (v *validator) podAnnotations(path string, ann map[string]string, spec *jsonv.Value) {
	if val, ok := ann[mirrorPodAnnotation]; ok && str(spec, "nodeName") == "" {
		v.invalid(key(path, mirrorPodAnnotation), val, "must set spec.nodeName if mirror pod annotation is set")
	}
	if t := ann[tolerationsAnnotation]; t != "" {
		v.annotationTolerations(path, t)
	}
	if val, ok := ann[deletionCostAnnotation]; ok && !validDeletionCost(val) {
		v.invalid(key(path, deletionCostAnnotation), val, "must be a 32bit integer")
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range ann {
			if !yield(k) {
				return
			}
		}
	})
	if p, ok := ann[seccompPodAnnotation]; ok {
		v.seccompAnnotation(path+"."+seccompPodAnnotation, p)
	}
	for _, k := range keys {
		if strings.HasPrefix(k, seccompContainerPrefix) {
			v.seccompAnnotation(path+"."+k, ann[k])
		}
	}
	for _, k := range keys {
		name, ok := strings.CutPrefix(k, appArmorContainerPrefix)
		if !ok {
			continue
		}
		if !podHasContainer(spec, name) {
			v.invalid(key(path, k), name, "container not found")
		}
		if p := ann[k]; p != "" && p != appArmorRuntimeDefault && p != appArmorUnconfinedMarker && !strings.HasPrefix(p, appArmorLocalhostPrefix) {
			v.invalid(key(path, k), p, "invalid AppArmor profile name: "+strconv.Quote(p))
		}
	}
}

// annotationTolerations checks the legacy tolerations annotation: JSON
// the real server's decoder reads as its internal tolerations (its
// error quoted as it words it), each a valid toleration.
func (v *validator) annotationTolerations(path, value string) {
	// The types carry the real internal types' names, so that a type
	// error names the same Go types.
	type TolerationOperator string
	type TaintEffect string
	type Toleration struct {
		Key               string
		Operator          TolerationOperator
		Value             string
		Effect            TaintEffect
		TolerationSeconds *int64
	}
	var parsed []Toleration
	if err := json.Unmarshal([]byte(value), &parsed); err != nil {
		v.invalid(path, tolerationsAnnotation, strings.ReplaceAll(err.Error(), "builtin.", "core."))
		return
	}
	res, err := jsonv.Parse([]byte(value))
	if err != nil || res.Value.Kind != jsonv.Array {
		return
	}
	for i := range res.Value.Arr {
		t := &res.Value.Arr[i]
		if t.Kind == jsonv.Object {
			v.toleration(index(path+"."+tolerationsAnnotation, i), caseFolded(t))
		}
	}
}

// caseFolded returns an object's members under the toleration field
// names they match as the Go decoder matches them, ignoring case.
func caseFolded(t *jsonv.Value) *jsonv.Value {
	out := jsonv.NewObject()
	for _, m := range t.Obj {
		for _, name := range []string{"key", "operator", "value", "effect", "tolerationSeconds"} {
			if strings.EqualFold(m.Key, name) && m.Value.Kind != jsonv.Null {
				out.Set(name, m.Value)
			}
		}
	}
	return &out
}

// validDeletionCost reports a deletion cost the real server reads: a
// 32-bit integer without a plus sign or leading zeros.
func validDeletionCost(s string) bool {
	if s == "" || !(s[0] == '-' || s == "0" || s[0] >= '1' && s[0] <= '9') {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 32)
	return err == nil
}

// seccompAnnotation checks a seccomp annotation's profile: runtime/default,
// docker/default, unconfined, or localhost/ and a relative path with no
// backsteps.
func (v *validator) seccompAnnotation(field, p string) {
	switch p {
	case "runtime/default", "docker/default", "unconfined":
		return
	}
	local, ok := strings.CutPrefix(p, seccompLocalhostPrefix)
	if !ok {
		v.invalid(field, p, "must be a valid seccomp profile")
		return
	}
	if path.IsAbs(local) {
		v.invalid(field, local, "must be a relative path")
	}
	if slices.Contains(strings.Split(local, "/"), "..") {
		v.invalid(field, local, "must not contain '..'")
	}
}

// podHasContainer reports whether an init, regular or ephemeral
// container of spec has the name.
func podHasContainer(spec *jsonv.Value, name string) bool {
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, c := range items(spec, list) {
			if str(c, "name") == name {
				return true
			}
		}
	}
	return false
}

// annotationsMatchFields checks that the seccomp and AppArmor
// annotations agree with the profiles of the security contexts: the
// pod's seccomp profile and each container's own; a container's AppArmor
// profile, its own or the pod's (not on a windows pod).
func (v *validator) annotationsMatchFields(path string, ann map[string]string, spec *jsonv.Value) {
	if len(ann) == 0 {
		return
	}
	if a, ok := ann[seccompPodAnnotation]; ok {
		if f := present(sub(spec, "securityContext"), "seccompProfile"); f != nil {
			v.profileMatch(path+".securityContext.seccompProfile", "seccomp", a, f)
		}
	}
	eachPodContainer(path, spec, func(p string, c *jsonv.Value) {
		if a, ok := ann[seccompContainerPrefix+str(c, "name")]; ok {
			if f := present(sub(c, "securityContext"), "seccompProfile"); f != nil {
				v.profileMatch(p+".securityContext.seccompProfile", "seccomp", a, f)
			}
		}
	})
	if str(sub(spec, "os"), "name") == "windows" {
		return
	}
	podProfile := present(sub(spec, "securityContext"), "appArmorProfile")
	eachPodContainer(path, spec, func(p string, c *jsonv.Value) {
		f := present(sub(c, "securityContext"), "appArmorProfile")
		if f == nil {
			f = podProfile
		}
		if a, ok := ann[appArmorContainerPrefix+str(c, "name")]; ok && f != nil {
			v.profileMatch(p+".securityContext.appArmorProfile", "apparmor", a, f)
		}
	})
}

// profileMatch checks an annotation value a against the seccomp or
// AppArmor profile f it duplicates (of kind "seccomp" or "apparmor").
func (v *validator) profileMatch(path, kind, a string, f *jsonv.Value) {
	typeMismatch := kind + " type in annotation and field must match"
	switch str(f, "type") {
	case "Unconfined":
		if a != "unconfined" {
			v.forbidden(path+".type", typeMismatch)
		}
	case "RuntimeDefault":
		if a != "runtime/default" && (kind == "apparmor" || a != "docker/default") {
			v.forbidden(path+".type", typeMismatch)
		}
	case "Localhost":
		local, ok := strings.CutPrefix(a, "localhost/")
		lp := f.Get("localhostProfile")
		switch {
		case !ok:
			v.forbidden(path+".type", typeMismatch)
		case lp == nil || lp.Kind != jsonv.String || lp.Str != local:
			v.forbidden(path+".localhostProfile", kind+" profile in annotation and field must match")
		}
	}
}
