package builtin

import (
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Validation of VolumeAttributesClasses, and what StorageClasses share
// with them: a driver name and opaque parameters for it.

// The real server's limits on a class's parameters.
const (
	// maxClassParameters is how many parameters a class may have.
	maxClassParameters = 512
	// maxClassParameterBytes bounds their keys and values together.
	maxClassParameterBytes = 256 * 1024
)

// validateVolumeAttributesClass checks a class's driver name and its
// parameters, of which it needs one.
func validateVolumeAttributesClass(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.provisioner("driverName", str(obj, "driverName"))
	v.classParameters("parameters", present(obj, "parameters"), false)
}

// volumeAttributesClassUpdate forbids changing a class's driver or
// parameters.
func volumeAttributesClassUpdate(v *validator, obj, old *jsonv.Value) {
	if str(obj, "driverName") != str(old, "driverName") {
		v.forbidden("driverName", "updates to driverName are forbidden.")
	}
	if !sameMap(obj, old, "parameters") {
		v.forbidden("parameters", "updates to parameters are forbidden.")
	}
}

// sameMap reports whether key holds the same map in both objects, an
// empty map unlike an absent one (a Go map nil or not).
func sameMap(a, b *jsonv.Value, key string) bool {
	x, y := present(a, key), present(b, key)
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return jsonv.Equal(*x, *y)
}

// provisioner checks a driver's name: required, and a qualified name in
// lower case. The real server shows the lowered name in its errors.
func (v *validator) provisioner(field, name string) {
	if name == "" {
		v.required(field, "")
		return
	}
	lower := strings.ToLower(name)
	v.problems(field, lower, qualifiedNameProblems(lower))
}

// classParameters checks a class's parameters: how many and how large,
// no empty key, and at least one unless allowEmpty.
func (v *validator) classParameters(field string, params *jsonv.Value, allowEmpty bool) {
	n := 0
	if params != nil {
		n = len(params.Obj)
	}
	if n > maxClassParameters {
		v.tooLong(field, maxClassParameters)
		return
	}
	size := 0
	if params != nil {
		for _, m := range params.Obj {
			if m.Key == "" {
				v.invalid(field, "", "field can not be empty.")
			}
			size += len(m.Key) + len(m.Value.Str)
		}
	}
	if size > maxClassParameterBytes {
		v.tooLong(field, maxClassParameterBytes)
	}
	if !allowEmpty && n == 0 {
		v.required(field, "must contain at least one key/value pair")
	}
}

// storageClassUpdate forbids changing a StorageClass's parameters,
// provisioner, reclaim policy and binding mode.
func storageClassUpdate(v *validator, obj, old *jsonv.Value) {
	if !sameMap(obj, old, "parameters") {
		shown := "null"
		if p := present(obj, "parameters"); p != nil {
			shown = shownMap(stringMap(obj, "parameters"))
		}
		v.invalidRaw("parameters", shown, "field is immutable")
	}
	for _, k := range []string{"provisioner", "reclaimPolicy", "volumeBindingMode"} {
		if !same(obj, old, k) {
			v.invalid(k, str(obj, k), "field is immutable")
		}
	}
}
