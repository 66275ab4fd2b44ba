package builtin

import (
	"math/big"
	"regexp"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// The devices of a ResourceSlice, as the real validator checks them: names,
// attributes, capacities and their request policies, taints, counter
// consumption, per-device node selection and binding conditions.

const (
	cIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*"
	semverNumber   = `(0|[1-9]\d*)`
	semverPre      = `(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)`
	semverBuild    = `[0-9a-zA-Z-]+`
)

var (
	cIdentifierRE = regexp.MustCompile("^" + cIdentifierFmt + "$")
	semverRE      = regexp.MustCompile(`^` + semverNumber + `\.` + semverNumber + `\.` + semverNumber +
		`(-` + semverPre + `(\.` + semverPre + `)*)?` + `(\+` + semverBuild + `(\.` + semverBuild + `)*)?$`)
)

// attributeKinds are the members of a device attribute, one of which is
// set, in the order the real message lists them.
var attributeKinds = []string{"int", "bool", "string", "version", "ints", "bools", "strings", "versions"}

// device checks one device of a slice; old is the stored device of its
// name on an update (nil if none), perDevice says whether the slice
// selects nodes per device. Capacity and taints the same as old's are
// not checked again.
func (v *validator) device(p string, d, old *jsonv.Value, perDevice bool) {
	name := str(d, "name")
	v.problems(p+".name", name, validation.LabelProblems(name))
	if attrs := present(d, "attributes"); attrs != nil {
		for i := range attrs.Obj {
			m := &attrs.Obj[i]
			v.deviceQualifiedName(p+".attributes", m.Key)
			v.deviceAttribute(key(p+".attributes", m.Key), &m.Value)
		}
	}
	if caps := present(d, "capacity"); caps != nil && !(old != nil && sameCapacity(caps, present(old, "capacity"))) {
		multi := isTrue(d, "allowMultipleAllocations")
		for i := range caps.Obj {
			m := &caps.Obj[i]
			v.deviceQualifiedName(p+".capacity", m.Key)
			policy := present(&m.Value, "requestPolicy")
			switch {
			case policy == nil:
			case !multi:
				v.forbidden(key(p+".capacity", m.Key)+".requestPolicy", "allowMultipleAllocations must be true")
			default:
				v.requestPolicy(key(p+".capacity", m.Key)+".requestPolicy", capacityValue(&m.Value), policy)
			}
		}
	}
	if old == nil || !sameTaints(d, old) {
		for i, t := range items(d, "taints") {
			v.deviceTaint(index(p+".taints", i), t)
		}
	}
	v.consumesCounters(p+".consumesCounters", d)
	if !perDevice && (!unset(d, "nodeName") || !unset(d, "nodeSelector") || !unset(d, "allNodes")) {
		v.invalidRaw(p, "null", "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec")
	}
	v.bindingConditions(p, d)
}

// capacityValue is a device capacity's value, zero when it has none.
func capacityValue(c *jsonv.Value) quantity {
	if q, ok := quantityAt(c, "value"); ok {
		return q
	}
	return quantity{text: "0", val: new(big.Rat)}
}

// deviceQualifiedName checks an attribute or capacity name: a C
// identifier, optionally after a driver-name domain and a slash. The
// real server reports it on the map itself.
func (v *validator) deviceQualifiedName(p, name string) {
	domain, id, prefixed := strings.Cut(name, "/")
	if !prefixed {
		v.cIdentifier(p, name)
		return
	}
	if domain == "" {
		v.invalid(p, "", "the domain must not be empty")
	} else {
		v.driverName(p, domain)
	}
	if id == "" {
		v.invalid(p, "", "the name must not be empty")
	} else {
		v.cIdentifier(p, id)
	}
}

func (v *validator) cIdentifier(p, id string) {
	if len(id) > 32 {
		v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: p, Detail: "may not be more than 32 bytes"})
	}
	if !cIdentifierRE.MatchString(id) {
		v.invalid(p, id, validation.RegexMessage("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'", cIdentifierFmt, "my_name", "MY_NAME", "MyName"))
	}
}

// deviceAttribute checks an attribute's value: exactly one kind set (an
// empty list counts as unset), strings of at most 64 bytes, versions in
// semver form.
func (v *validator) deviceAttribute(p string, a *jsonv.Value) {
	var set []string
	for _, k := range attributeKinds {
		if x := a.Get(k); x != nil && x.Kind != jsonv.Null && !(x.Kind == jsonv.Array && len(x.Arr) == 0) {
			set = append(set, k)
		}
	}
	all := "`" + strings.Join(attributeKinds, "`, `") + "`"
	switch len(set) {
	case 0:
		v.invalid(p, "", "must specify one of: "+all)
	case 1:
	default:
		v.invalid(p, "{"+strings.Join(set, ", ")+"}", "must specify exactly one of: "+all)
	}
	if s, ok := setString(a, "string"); ok {
		v.attributeLength(p+".string", s)
	}
	if s, ok := setString(a, "version"); ok {
		v.semver(p+".version", s)
	}
	for i, s := range stringsOf(a, "strings") {
		v.attributeLength(index(p+".strings", i), s)
	}
	for i, s := range stringsOf(a, "versions") {
		v.semver(index(p+".versions", i), s)
	}
}

func (v *validator) attributeLength(p, s string) {
	if len(s) > 64 {
		v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: p, Detail: "may not be more than 64 bytes"})
	}
}

func (v *validator) semver(p, s string) {
	if !semverRE.MatchString(s) {
		v.invalid(p, s, "must be a string compatible with semver.org spec 2.0.0")
	}
	v.attributeLength(p, s)
}
